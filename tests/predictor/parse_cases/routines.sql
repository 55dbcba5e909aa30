-- title: CREATE TRIGGER with DEFINER and a single statement
CREATE DEFINER=root@localhost TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1;
-- expect: class = CreateTrigger
-- expect: this.name = tr
-- expect: timing = BEFORE
-- expect: event = INSERT
-- expect: table.name = t
-- expect: definer.this = root@localhost
-- expect: body.class = Set

-- title: CREATE TRIGGER with a compound body
CREATE TRIGGER db1.tr2 AFTER UPDATE ON db1.t FOR EACH ROW FOLLOWS tr1
BEGIN
  INSERT INTO log (id, old_a) VALUES (NEW.id, OLD.a);
  IF NEW.a > 10 THEN
    UPDATE counters SET n = n + 1 WHERE name = 'big';
  END IF;
END;
-- expect: class = CreateTrigger
-- expect: timing = AFTER
-- expect: event = UPDATE
-- expect: table.db = db1
-- expect: order.expressions.0.name = FOLLOWS
-- expect: body.class = Block
-- expect: body.expressions.kinds = Insert,IfBlock
-- expect: body.expressions.1.true.expressions.kinds = Update

-- title: CREATE TRIGGER DELETE with quoted definer
CREATE DEFINER='app'@'%' TRIGGER trd AFTER DELETE ON t FOR EACH ROW DELETE FROM t2 WHERE id = OLD.id;
-- expect: event = DELETE
-- expect: definer.this = app@%
-- expect: body.class = Delete

-- title: CREATE FUNCTION with RETURN expression
CREATE FUNCTION f(x INT) RETURNS INT DETERMINISTIC RETURN x + 1;
-- expect: class = CreateRoutine
-- expect: kind = FUNCTION
-- expect: this.name = f
-- expect: params.len = 1
-- expect: params.0.this.name = x
-- expect: params.0.kind.this = INT
-- expect: returns.this = INT
-- expect: deterministic = true
-- expect: body.class = Return

-- title: CREATE FUNCTION with characteristics and a block
CREATE DEFINER = CURRENT_USER FUNCTION f2(a VARCHAR(10), b INT) RETURNS VARCHAR(20) CHARSET utf8mb4
  NOT DETERMINISTIC READS SQL DATA SQL SECURITY INVOKER COMMENT 'c'
BEGIN
  DECLARE y INT DEFAULT 0;
  SELECT COUNT(*) INTO y FROM t WHERE c = a;
  INSERT INTO audit VALUES (NOW(), y);
  RETURN CONCAT(a, y);
END;
-- expect: class = CreateRoutine
-- expect: definer.this = CURRENT_USER
-- expect: deterministic = false
-- expect: characteristics.len = 4
-- expect: params.1.kind.this = INT
-- expect: body.expressions.kinds = Declare,Select,Insert,Return
-- expect: body.expressions.1.into.class = Into

-- title: CREATE PROCEDURE with IN/OUT/INOUT and every compound statement
CREATE PROCEDURE p(IN a INT, OUT b INT, INOUT c VARCHAR(5))
MODIFIES SQL DATA
main: BEGIN
  DECLARE x INT DEFAULT 0;
  DECLARE done INT DEFAULT 0;
  DECLARE dup CONDITION FOR 1062;
  DECLARE cur CURSOR FOR SELECT id FROM t;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION, SQLSTATE '23000' BEGIN ROLLBACK; RESIGNAL; END;
  OPEN cur;
  l1: LOOP
    FETCH cur INTO x;
    IF done THEN LEAVE l1;
    ELSEIF x > 3 THEN ITERATE l1;
    ELSE INSERT INTO t2 VALUES (x);
    END IF;
  END LOOP l1;
  CLOSE cur;
  WHILE x < 10 DO SET x = x + 1; END WHILE;
  REPEAT SET x = x - 1; UNTIL x < 0 END REPEAT;
  CASE x WHEN 1 THEN UPDATE t SET a = 1; ELSE DELETE FROM t LIMIT 1; END CASE;
  CASE WHEN a > 0 THEN CALL q(a); END CASE;
  START TRANSACTION;
  SAVEPOINT s;
  CREATE TEMPORARY TABLE tmp (i INT);
  COMMIT;
  IF b IS NULL THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'none'; END IF;
  LEAVE main;
END main;
-- expect: class = CreateRoutine
-- expect: kind = PROCEDURE
-- expect: params.0.mode = IN
-- expect: params.1.mode = OUT
-- expect: params.2.mode = INOUT
-- expect: params.2.kind.this = VARCHAR
-- expect: returns = none
-- expect: body.class = Block
-- expect: body.label = main
-- expect: body.expressions.kinds = Declare,Declare,DeclareCondition,DeclareCursor,DeclareHandler,DeclareHandler,CursorOp,LoopBlock,CursorOp,WhileBlock,RepeatBlock,CaseStatement,CaseStatement,Transaction,Savepoint,Create,Commit,IfBlock,Leave
-- expect: body.expressions.3.expression.class = Select
-- expect: body.expressions.4.action = CONTINUE
-- expect: body.expressions.4.conditions.0.name = NOT FOUND
-- expect: body.expressions.4.body.class = Set
-- expect: body.expressions.5.action = EXIT
-- expect: body.expressions.5.conditions.len = 2
-- expect: body.expressions.5.body.expressions.kinds = Rollback,Signal
-- expect: body.expressions.7.label = l1
-- expect: body.expressions.7.body.expressions.kinds = CursorOp,IfBlock
-- expect: body.expressions.7.body.expressions.1.true.expressions.kinds = Leave
-- expect: body.expressions.7.body.expressions.1.false.class = IfBlock
-- expect: body.expressions.7.body.expressions.1.false.false.expressions.kinds = Insert
-- expect: body.expressions.9.body.expressions.kinds = Set
-- expect: body.expressions.10.until.class = LT
-- expect: body.expressions.11.ifs.0.true.expressions.kinds = Update
-- expect: body.expressions.11.default.expressions.0.limit.expression.name = 1
-- expect: body.expressions.12.this = none
-- expect: body.expressions.12.ifs.0.true.expressions.kinds = Call
-- expect: body.expressions.17.true.expressions.0.kind = SIGNAL
-- expect: body.expressions.18.this = main

-- title: CREATE PROCEDURE without parameters, body a single statement
CREATE PROCEDURE IF NOT EXISTS db1.p0() INSERT INTO t VALUES (1);
-- expect: class = CreateRoutine
-- expect: exists = true
-- expect: this.db = db1
-- expect: params.len = 0
-- expect: body.class = Insert

-- title: BEGIN NOT ATOMIC anonymous block (MariaDB)
BEGIN NOT ATOMIC
  DECLARE i INT DEFAULT 0;
  WHILE i < 3 DO INSERT INTO t VALUES (i); SET i = i + 1; END WHILE;
END;
-- expect: class = Block
-- expect: expressions.kinds = Declare,WhileBlock
-- expect: expressions.1.body.expressions.kinds = Insert,Set

-- title: CREATE PROCEDURE with CHARACTER SET / COLLATE on parameters and variables
CREATE PROCEDURE p(IN a VARCHAR(60) CHARACTER SET utf8mb4, IN b VARCHAR(8) CHARSET latin1 COLLATE latin1_bin)
BEGIN
  DECLARE v VARCHAR(20) CHARACTER SET utf8mb4 DEFAULT 'x';
  INSERT INTO t VALUES (a, b, v);
END;
-- expect: class = CreateRoutine
-- expect: params.0.kind.charset.name = utf8mb4
-- expect: params.1.kind.collate.name = latin1_bin
-- expect: body.expressions.1.class = Insert
