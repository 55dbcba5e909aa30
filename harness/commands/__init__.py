"""One module per ``rplay`` subcommand, each with ``register(subparsers)``."""
