"""PyYAML's pure-Python safe loader, with its simple-key bookkeeping in linear time.

The scanner keeps one "possible simple key" per open flow level (`[` or `{`)
and, before every token, walks all of them twice: to drop the stale ones and
to find the one with the smallest token number. On text with many open levels
on one line (`[[[[...`, the nesting that libyaml cannot take and that is sent
here) that is quadratic: some 1,000 levels kept for 1,024 characters, about a
second of CPU to reach the depth where the composer gives up.

The keys are kept in a dict by flow level, and PyYAML's own code keeps that
dict ordered: a key is saved at the current level after the key of that level
is removed (so it goes last), a level closes only after its key is removed,
and the scanner only moves forward. So the dict's order is that of the
levels, of the token numbers and of the positions in the text. The first key
has the smallest token number (the comment in PyYAML's `next_possible_simple_key`
says as much), and the stale keys, those on an earlier line or more than 1,024
characters back, are the first ones. Both methods below give what PyYAML's
give, reading only the keys they need; the tokens, nodes, values and errors
are PyYAML's (tested against `yaml.SafeLoader` in tests/test_yaml_loader.py).
"""

from __future__ import annotations

import yaml
from yaml.scanner import ScannerError

SIMPLE_KEY_REACH = 1024  # characters: PyYAML's (and the YAML spec's) limit on a simple key's length


class LinearSafeLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` whose simple-key bookkeeping reads only the keys it needs."""

    def next_possible_simple_key(self) -> int | None:
        for key in self.possible_simple_keys.values():
            return int(key.token_number)  # the first key: the smallest token number
        return None

    def stale_possible_simple_keys(self) -> None:
        keys = self.possible_simple_keys
        while keys:
            level, key = next(iter(keys.items()))
            if key.line == self.line and self.index - key.index <= SIMPLE_KEY_REACH:
                return  # this key is current, and so is every key after it
            if key.required:
                raise ScannerError(
                    "while scanning a simple key", key.mark, "could not find expected ':'", self.get_mark()
                )
            del keys[level]
