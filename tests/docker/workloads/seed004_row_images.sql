-- title: WL#5092 row images on docker servers: MINIMAL with a primary and a unique key, MINIMAL without keys
-- seed: 004_f3c7a4cd613f39da.txt
CREATE TABLE k (id INT PRIMARY KEY, u INT NOT NULL, v INT, UNIQUE KEY (u)) ENGINE=InnoDB;
CREATE TABLE nk (a INT, b INT) ENGINE=InnoDB;
SET SESSION binlog_format = 'ROW';
SET SESSION binlog_row_image = 'MINIMAL';
INSERT INTO k VALUES (1, 10, 100);
UPDATE k SET v = 101 WHERE id = 1;
INSERT INTO nk VALUES (1, 2);
UPDATE nk SET b = 3 WHERE a = 1;
DELETE FROM k WHERE id = 1;
