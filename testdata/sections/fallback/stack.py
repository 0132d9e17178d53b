#!/usr/bin/env python3
"""A tiny stack."""
import sys


class Stack:
    """LIFO stack of items."""

    def __init__(self):
        self.items = []

    # Push adds an item on top.
    @trace
    def push(self, item):
        self.items.append(item)

    def pop(self):
        return self.items.pop()


def main():
    s = Stack()
    s.push(1)


if __name__ == "__main__":
    main()
