"""rplay predictor: what a MySQL-family server will write to its binary log, before running anything."""
