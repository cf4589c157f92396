"""The Store screens: the namespace tree with its items, the item form and the search form."""
