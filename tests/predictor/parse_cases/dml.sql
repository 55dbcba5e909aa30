-- title: REPLACE ... VALUES
REPLACE INTO t VALUES (1, 2);
-- expect: class = Insert
-- expect: replace = true
-- expect: this.name = t
-- expect: expression.class = Values

-- title: REPLACE ... SELECT
REPLACE INTO t (a, b) SELECT a, b FROM u;
-- expect: class = Insert
-- expect: replace = true
-- expect: this.class = Schema
-- expect: this.this.name = t
-- expect: expression.class = Select

-- title: REPLACE ... SET
REPLACE INTO t SET a = 1, b = 'x';
-- expect: class = Insert
-- expect: replace = true
-- expect: set_form = true
-- expect: this.expressions.len = 2

-- title: INSERT ... SET
INSERT INTO t SET a = 1, b = 2;
-- expect: class = Insert
-- expect: replace = none
-- expect: set_form = true
-- expect: this.this.name = t

-- title: INSERT DELAYED
INSERT DELAYED INTO t VALUES (1);
-- expect: class = Insert
-- expect: priority = DELAYED

-- title: INSERT LOW_PRIORITY IGNORE
insert low_priority ignore into t values (1);
-- expect: class = Insert
-- expect: priority = LOW_PRIORITY
-- expect: ignore = true

-- title: INSERT HIGH_PRIORITY IGNORE ... SELECT
INSERT HIGH_PRIORITY IGNORE INTO t SELECT * FROM u;
-- expect: priority = HIGH_PRIORITY
-- expect: ignore = true
-- expect: expression.class = Select

-- title: INSERT ... ON DUPLICATE KEY UPDATE
INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a) + 1;
-- expect: class = Insert
-- expect: conflict.class = OnConflict
-- expect: conflict.duplicate = true

-- title: UPDATE IGNORE single table
UPDATE IGNORE t SET a = 1 WHERE id = 2;
-- expect: class = Update
-- expect: ignore = true
-- expect: this.name = t

-- title: UPDATE LOW_PRIORITY IGNORE multi-table
UPDATE LOW_PRIORITY IGNORE t1 JOIN t2 ON t1.id = t2.id SET t1.a = t2.b;
-- expect: class = Update
-- expect: ignore = true
-- expect: priority = LOW_PRIORITY
-- expect: this.joins.0.this.name = t2

-- title: UPDATE with ORDER BY and LIMIT
UPDATE t SET a = a + 1 ORDER BY id LIMIT 5;
-- expect: class = Update
-- expect: order.class = Order
-- expect: limit.expression.name = 5

-- title: UPDATE multi-table comma syntax
UPDATE t1, t2 SET t1.a = t2.a WHERE t1.id = t2.id;
-- expect: class = Update
-- expect: this.name = t1

-- title: DELETE IGNORE single table
DELETE IGNORE FROM t WHERE a = 1;
-- expect: class = Delete
-- expect: ignore = true
-- expect: this.name = t

-- title: DELETE LOW_PRIORITY QUICK IGNORE
DELETE LOW_PRIORITY QUICK IGNORE FROM t;
-- expect: class = Delete
-- expect: ignore = true
-- expect: quick = true
-- expect: priority = LOW_PRIORITY

-- title: DELETE with ORDER BY and LIMIT 0
DELETE FROM t ORDER BY id LIMIT 0;
-- expect: class = Delete
-- expect: limit.expression.name = 0

-- title: DELETE IGNORE multi-table
DELETE IGNORE t1, t2 FROM t1 JOIN t2 ON t1.id = t2.id WHERE t2.x > 0;
-- expect: class = Delete
-- expect: ignore = true
-- expect: tables.kinds = Table,Table
-- expect: tables.1.name = t2

-- title: DELETE ... USING
DELETE FROM t1 USING t1 JOIN t2 ON t1.id = t2.id;
-- expect: class = Delete
-- expect: this.name = t1
-- expect: using.len = 1

-- title: LOAD DATA INFILE
LOAD DATA INFILE '/tmp/x.csv' INTO TABLE t;
-- expect: class = LoadData
-- expect: this.name = t
-- expect: inpath.name = /tmp/x.csv
-- expect: local = none
-- expect: duplicates = none

-- title: LOAD DATA LOCAL INFILE REPLACE with options
LOAD DATA LOCAL INFILE '/tmp/x.csv' REPLACE INTO TABLE db1.t
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\n'
  IGNORE 1 LINES (a, @b) SET c = @b * 2;
-- expect: class = LoadData
-- expect: local = true
-- expect: duplicates = REPLACE
-- expect: this.db = db1
-- expect: options.len = 3
-- expect: ignore_lines.name = 1
-- expect: columns.len = 2
-- expect: set.len = 1

-- title: LOAD DATA IGNORE
LOAD DATA INFILE 'f' IGNORE INTO TABLE t;
-- expect: duplicates = IGNORE

-- title: SELECT ... FOR UPDATE SKIP LOCKED
SELECT * FROM t WHERE id = 1 FOR UPDATE SKIP LOCKED;
-- expect: class = Select
-- expect: locks.0.update = true
-- expect: locks.0.wait = false

-- title: SELECT ... FOR UPDATE NOWAIT
SELECT * FROM t FOR UPDATE NOWAIT;
-- expect: locks.0.wait = true

-- title: CALL with arguments
CALL db1.p(1, @a, 'x');
-- expect: class = Call
-- expect: this.name = p
-- expect: this.db = db1
-- expect: expressions.len = 3

-- title: CALL without parentheses
CALL p;
-- expect: class = Call
-- expect: expressions.len = 0

-- title: DO
DO SLEEP(1), RELEASE_LOCK('a');
-- expect: class = Do
-- expect: expressions.len = 2

-- title: SET with REPLACE() function is not a REPLACE statement
SET @x = REPLACE('abc', 'b', 'c');
-- expect: class = Set

-- title: SELECT ... INTO a list of variables (stored code; sqlglot takes one table name)
SELECT period_start, period_end INTO v_start, @v_end FROM pay_runs WHERE id = p_run_id;
-- expect: class = Select
-- expect: into.this.name = v_start
-- expect: into.expressions.kinds = Parameter
-- expect: from_.this.name = pay_runs

-- title: SELECT ... INTO after the WHERE (MySQL 8)
SELECT a FROM t WHERE b = 1 INTO @x;
-- expect: class = Select
-- expect: into.this.class = Parameter
-- expect: where.this.class = EQ

-- title: SELECT ... INTO OUTFILE with its options
SELECT a FROM t INTO OUTFILE '/tmp/a.txt' FIELDS TERMINATED BY ',' LINES TERMINATED BY '\n';
-- expect: class = Select
-- expect: into.this.name = /tmp/a.txt

-- title: JSON_OBJECT values are any expression, a comparison too (blood_bank_app's recall notices)
INSERT INTO outbox (payload) VALUES (JSON_OBJECT('kit', p_kit, 'leukoreduced', v_code <> 'FFP', 'lookback', v_status = 'TRANSFUSED', 'n', v_n + 1));
-- expect: class = Insert
-- expect: expression.expressions.0.expressions.0.class = JSONObject
-- expect: expression.expressions.0.expressions.0.expressions.kinds = JSONKeyValue,JSONKeyValue,JSONKeyValue,JSONKeyValue
-- expect: expression.expressions.0.expressions.0.expressions.1.expression.class = NEQ
-- expect: expression.expressions.0.expressions.0.expressions.2.expression.class = EQ
-- expect: expression.expressions.0.expressions.0.expressions.3.expression.class = Add
