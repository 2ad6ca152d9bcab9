"""Sharing modules through git: `cogn add`, `cogn update`, `cogn remove` (docs/sharing.md).

A module is fetched from a git repository (https, ssh, file URLs or a local path), read out of git's objects
without a checkout (so no hook, filter or submodule ever runs), checked (no symlink, no submodule, bounded
sizes), written into a hidden staging folder beside its destination, validated as `cogn validate` would, and
renamed into place in one step. `cognitive.lock` records where each installed module came from, the commit it
was resolved to and a hash of its files, so `cogn add` without arguments reinstalls exactly that.

source.py     the argument of `cogn add`: protocols allowed, credentials kept out of output and the lock
git.py        the git command, always as an argument list with hooks and unsafe protocols off
repo_tree.py  which folder of a commit is the module, and its files, refused when unsafe or too large
versions.py   semantic versions of tags: which tag is the newest
lockfile.py   cognitive.lock, and the content hash
placement.py  staging, validation and the atomic rename into the search path
install.py    add, reinstall from the lock, update, remove
"""
