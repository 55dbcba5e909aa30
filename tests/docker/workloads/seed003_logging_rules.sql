-- title: decide_logging_format rules on docker servers: an unsafe function, CREATE...SELECT, temporary tables
-- seed: 003_df3e998c939d50b2.txt
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
SET SESSION binlog_format = 'STATEMENT';
INSERT INTO t VALUES (1, UUID());
SET SESSION binlog_format = 'MIXED';
INSERT INTO t VALUES (2, UUID());
CREATE TABLE c ENGINE=InnoDB SELECT id FROM t;
SET SESSION binlog_format = 'ROW';
CREATE TEMPORARY TABLE tmp (a INT) ENGINE=InnoDB;
INSERT INTO tmp VALUES (1);
