"""The Threads screens: the list, the attention list, and the create and search forms."""
