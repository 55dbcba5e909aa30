"""rplay harness: real primary/replica pairs, replay, binlog read-back, comparison and reports."""
