"""Greeting helpers."""
import os
from typing import Optional

DEFAULT = "hello"


# Greeter says hello.
class Greeter(Base):
    """Greets people by name.

    Keeps the greeting.
    """

    greeting: str = DEFAULT

    def __init__(self, name: str):
        self.name = name

    # greet greets.
    @property
    def greet(self) -> str:
        """Return the greeting."""

        def shout(s):
            return s.upper()

        return shout(self.greeting + " " + self.name)

    class Config:
        verbose = False

        def load(self):
            pass


@cache
def lookup(name: str,
           default: Optional[str] = None) -> str:
    # No docstring here.
    return os.environ.get(name, default)


square = lambda x: x * x

if __name__ == "__main__":
    print(Greeter("you").greet)
