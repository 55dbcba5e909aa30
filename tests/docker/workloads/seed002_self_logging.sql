-- title: WL#3931 self-logging engines: neither docker server has one, so NDB tables cannot be created
-- seed: 002_833592fd219109c4.txt
CREATE TABLE ndb_t (a INT) ENGINE=NDBCLUSTER;
CREATE TABLE tt (a INT) ENGINE=InnoDB;
CREATE TABLE nt (a INT) ENGINE=MyISAM;
INSERT INTO tt SELECT a FROM nt;
