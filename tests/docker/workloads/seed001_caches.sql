-- title: WL#2687 caches on docker servers: T and N statements, autocommit and inside a transaction
-- seed: 001_46369b721371e72a.txt
CREATE TABLE tt (a INT) ENGINE=InnoDB;
CREATE TABLE nt (a INT) ENGINE=MyISAM;
INSERT INTO nt VALUES (1);
INSERT INTO tt VALUES (1);
BEGIN;
INSERT INTO tt VALUES (2);
INSERT INTO nt VALUES (2);
COMMIT;
