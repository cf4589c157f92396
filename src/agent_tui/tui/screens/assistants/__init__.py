"""The Assistants screens: the list, one assistant's detail, its form and its graph."""
