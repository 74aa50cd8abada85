"""Casino configuration read from files: the rule catalog and the floor layout.

The rules layer validates; this package only finds and parses the files, and names the file
and key in every error.
"""
