-- title: WL#3303 decision table on docker servers: safe/unsafe x STATEMENT/MIXED/ROW on InnoDB
-- seed: 000_98dfc1fdf2893b3a.txt
CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
SET SESSION binlog_format = 'STATEMENT';
INSERT INTO t VALUES (1, 1), (2, 2);
UPDATE t SET v = 10 ORDER BY id LIMIT 1;
SET SESSION binlog_format = 'MIXED';
UPDATE t SET v = 20 ORDER BY id LIMIT 1;
INSERT INTO t VALUES (3, 3);
SET SESSION binlog_format = 'ROW';
INSERT INTO t VALUES (4, 4);
