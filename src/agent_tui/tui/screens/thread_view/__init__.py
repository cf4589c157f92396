"""The thread view: one thread's history, diffs, actions and chat, in one screen."""
