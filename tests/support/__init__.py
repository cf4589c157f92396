"""What the tests share: helpers, harness apps and fakes, imported as `tests.support.<module>`.

`tests` is a package, so pytest puts the repository's root on `sys.path` (its rootdir-based
import) and every test, in any folder, imports these by their full name. Only modules of
their own here: a test's fixtures live in the conftest.py of its folder.
"""
