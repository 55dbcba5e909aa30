-- title: CREATE TABLE with column definitions, keys and ENGINE
CREATE TABLE t (
  id INT NOT NULL AUTO_INCREMENT,
  b BLOB,
  c TEXT,
  j JSON,
  g GEOMETRY,
  v INT GENERATED ALWAYS AS (id + 1) VIRTUAL,
  s INT AS (id * 2) STORED,
  d INT NULL DEFAULT 3,
  PRIMARY KEY (id),
  UNIQUE KEY u (c(10)),
  KEY k (b(10)),
  FULLTEXT KEY ft (c),
  INDEX ix (d)
) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4;
-- expect: class = Create
-- expect: kind = TABLE
-- expect: this.this.name = t
-- expect: this.expressions.kinds = ColumnDef,ColumnDef,ColumnDef,ColumnDef,ColumnDef,ColumnDef,ColumnDef,ColumnDef,PrimaryKey,UniqueColumnConstraint,IndexColumnConstraint,IndexColumnConstraint,IndexColumnConstraint
-- expect: this.expressions.0.kind.this = INT
-- expect: this.expressions.0.constraints.kinds = ColumnConstraint,ColumnConstraint
-- expect: this.expressions.0.constraints.0.kind.class = NotNullColumnConstraint
-- expect: this.expressions.0.constraints.1.kind.class = AutoIncrementColumnConstraint
-- expect: this.expressions.1.kind.this = BLOB
-- expect: this.expressions.3.kind.this = JSON
-- expect: this.expressions.4.kind.this = GEOMETRY
-- expect: this.expressions.5.constraints.0.kind.class = ComputedColumnConstraint
-- expect: this.expressions.5.constraints.0.kind.persisted = false
-- expect: this.expressions.6.constraints.0.kind.persisted = true
-- expect: this.expressions.7.constraints.1.kind.class = DefaultColumnConstraint
-- expect: this.expressions.10.expressions.0.class = ColumnPrefix
-- expect: this.expressions.11.kind = FULLTEXT
-- expect: properties.expressions.0.class = EngineProperty
-- expect: properties.expressions.0.this.name = MyISAM

-- title: CREATE TABLE with inline PRIMARY KEY and UNIQUE KEY
CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE KEY, x INT KEY);
-- expect: class = Create
-- expect: this.expressions.0.constraints.0.kind.class = PrimaryKeyColumnConstraint
-- expect: this.expressions.1.constraints.0.kind.class = UniqueColumnConstraint

-- title: CREATE TABLE ... SELECT
CREATE TABLE t2 SELECT * FROM t;
-- expect: class = Create
-- expect: expression.class = Select
-- expect: duplicates = none

-- title: CREATE TABLE ... IGNORE SELECT
CREATE TABLE t2 (a INT PRIMARY KEY) IGNORE SELECT a FROM t;
-- expect: class = Create
-- expect: duplicates = IGNORE
-- expect: expression.class = Select
-- expect: this.this.name = t2

-- title: CREATE TABLE ... REPLACE SELECT
CREATE TABLE t2 REPLACE SELECT * FROM t;
-- expect: duplicates = REPLACE
-- expect: expression.class = Select

-- title: CREATE TEMPORARY TABLE ... SELECT with ENGINE
CREATE TEMPORARY TABLE tmp ENGINE=MEMORY SELECT 1 AS a;
-- expect: class = Create
-- expect: properties.expressions.kinds = TemporaryProperty,EngineProperty
-- expect: expression.class = Select

-- title: CREATE TABLE ... LIKE
CREATE TABLE t3 LIKE t;
-- expect: class = Create
-- expect: properties.expressions.0.class = LikeProperty
-- expect: properties.expressions.0.this.name = t

-- title: CREATE SEQUENCE (MariaDB)
CREATE SEQUENCE s START WITH 1 INCREMENT BY 1;
-- expect: class = Create
-- expect: kind = SEQUENCE
-- expect: this.name = s

-- title: CREATE OR REPLACE ALGORITHM VIEW with columns
CREATE OR REPLACE ALGORITHM=MERGE VIEW v (a, b) AS SELECT x, y FROM t;
-- expect: class = Create
-- expect: kind = VIEW
-- expect: replace = true
-- expect: this.this.name = v
-- expect: expression.class = Select

-- title: CREATE DEFINER VIEW
CREATE DEFINER = 'root'@'localhost' SQL SECURITY INVOKER VIEW v AS SELECT 1;
-- expect: class = Create
-- expect: kind = VIEW

-- title: CREATE VIEW WITH CHECK OPTION
CREATE VIEW v_open AS SELECT id, status FROM tickets WHERE status <> 'closed' WITH CHECK OPTION;
-- expect: class = Create
-- expect: kind = VIEW
-- expect: check_option = true
-- expect: expression.class = Select
-- expect: expression.where.class = Where

-- title: CREATE VIEW WITH LOCAL CHECK OPTION
CREATE VIEW v AS SELECT id FROM t WHERE a = 1 WITH LOCAL CHECK OPTION;
-- expect: kind = VIEW
-- expect: check_option = true

-- title: CREATE VIEW without CHECK OPTION
CREATE VIEW v AS SELECT id FROM t WHERE a = 1;
-- expect: kind = VIEW
-- expect: check_option = none

-- title: DROP TRIGGER IF EXISTS
DROP TRIGGER IF EXISTS db1.tr;
-- expect: class = Drop
-- expect: kind = TRIGGER
-- expect: exists = true

-- title: DROP FUNCTION
DROP FUNCTION IF EXISTS f;
-- expect: kind = FUNCTION

-- title: DROP PROCEDURE
DROP PROCEDURE p;
-- expect: kind = PROCEDURE
-- expect: exists = false

-- title: DROP VIEW
DROP VIEW IF EXISTS v;
-- expect: kind = VIEW

-- title: DROP TEMPORARY TABLE
DROP TEMPORARY TABLE IF EXISTS tmp;
-- expect: kind = TABLE
-- expect: temporary = true

-- title: TRUNCATE TABLE
TRUNCATE TABLE t;
-- expect: class = TruncateTable
-- expect: expressions.0.name = t

-- title: TRUNCATE without TABLE
TRUNCATE t;
-- expect: class = TruncateTable

-- title: ALTER TABLE ENGINE
ALTER TABLE t ENGINE=MyISAM;
-- expect: class = Alter
-- expect: this.name = t
-- expect: options.0.class = EngineProperty
-- expect: options.0.this.name = MyISAM

-- title: CREATE INDEX
CREATE INDEX i ON t (a);
-- expect: class = Create
-- expect: kind = INDEX

-- title: DROP INDEX
DROP INDEX i ON t;
-- expect: class = Drop
-- expect: kind = INDEX

-- title: CREATE DATABASE
CREATE DATABASE IF NOT EXISTS d;
-- expect: kind = DATABASE
-- expect: exists = true

-- title: DROP DATABASE
DROP DATABASE d;
-- expect: kind = DATABASE

-- title: USE
USE d;
-- expect: class = Use
-- expect: this.name = d

-- title: FLUSH LOGS
FLUSH LOGS;
-- expect: class = Flush
-- expect: expressions.0.name = LOGS
-- expect: local = none

-- title: FLUSH NO_WRITE_TO_BINLOG BINARY LOGS, STATUS
FLUSH NO_WRITE_TO_BINLOG BINARY LOGS, STATUS;
-- expect: class = Flush
-- expect: local = true
-- expect: expressions.len = 2
-- expect: expressions.0.name = BINARY LOGS

-- title: FLUSH TABLES with names
FLUSH TABLES t1, t2;
-- expect: class = Flush
-- expect: tables.len = 2

-- title: FLUSH TABLES WITH READ LOCK
FLUSH TABLES WITH READ LOCK;
-- expect: expressions.0.name = TABLES WITH READ LOCK

-- title: ANALYZE TABLE
ANALYZE TABLE t;
-- expect: class = TableMaintenance
-- expect: kind = ANALYZE
-- expect: expressions.0.name = t

-- title: OPTIMIZE LOCAL TABLE
OPTIMIZE LOCAL TABLE t1, t2;
-- expect: class = TableMaintenance
-- expect: kind = OPTIMIZE
-- expect: local = true
-- expect: expressions.len = 2

-- title: REPAIR TABLE
REPAIR NO_WRITE_TO_BINLOG TABLE t;
-- expect: kind = REPAIR
-- expect: local = true

-- title: RENAME TABLE
RENAME TABLE a TO b, db1.c TO db2.d;
-- expect: class = RenameTables
-- expect: expressions.len = 2
-- expect: expressions.1.expressions.0.db = db1
-- expect: expressions.1.expressions.1.name = d

-- title: CREATE TABLE with FLOAT UNSIGNED (sqlglot has no unsigned FLOAT)
CREATE TABLE f (a FLOAT UNSIGNED, b FLOAT(7,2) UNSIGNED NOT NULL);
-- expect: class = Create
-- expect: this.expressions.0.kind.this = UDOUBLE
