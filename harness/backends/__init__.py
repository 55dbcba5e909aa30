"""Server backends (local processes, docker containers) behind one Protocol; see ``base``."""
