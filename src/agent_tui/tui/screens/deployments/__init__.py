"""The Deployments screens: the list, one deployment's revisions, the form and a revision's progress, logs and diff."""
