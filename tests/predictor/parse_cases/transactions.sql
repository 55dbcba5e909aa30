-- title: START TRANSACTION
START TRANSACTION;
-- expect: class = Transaction
-- expect: modes = none

-- title: START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT
START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT;
-- expect: class = Transaction
-- expect: modes = READ ONLY,WITH CONSISTENT SNAPSHOT

-- title: BEGIN WORK
BEGIN WORK;
-- expect: class = Transaction

-- title: COMMIT WORK AND NO CHAIN NO RELEASE
COMMIT WORK AND NO CHAIN NO RELEASE;
-- expect: class = Commit
-- expect: chain = false
-- expect: release = false

-- title: COMMIT AND CHAIN
COMMIT AND CHAIN;
-- expect: chain = true
-- expect: release = none

-- title: ROLLBACK RELEASE
ROLLBACK WORK RELEASE;
-- expect: class = Rollback
-- expect: release = true
-- expect: savepoint = none

-- title: ROLLBACK TO SAVEPOINT
ROLLBACK TO SAVEPOINT s1;
-- expect: class = Rollback
-- expect: savepoint.name = s1

-- title: ROLLBACK WORK TO without SAVEPOINT keyword
ROLLBACK WORK TO s2;
-- expect: savepoint.name = s2

-- title: SAVEPOINT
SAVEPOINT sp_1;
-- expect: class = Savepoint
-- expect: this.name = sp_1

-- title: RELEASE SAVEPOINT
RELEASE SAVEPOINT sp_1;
-- expect: class = ReleaseSavepoint
-- expect: this.name = sp_1

-- title: XA START
XA START 'xid1';
-- expect: class = Xa
-- expect: kind = START
-- expect: this.name = xid1

-- title: XA BEGIN is XA START
XA BEGIN 'g', 'b', 1;
-- expect: kind = START
-- expect: this.class = Tuple
-- expect: this.expressions.len = 3

-- title: XA END
XA END 'xid1';
-- expect: kind = END

-- title: XA PREPARE
XA PREPARE 'xid1';
-- expect: kind = PREPARE

-- title: XA COMMIT ONE PHASE
XA COMMIT 'xid1' ONE PHASE;
-- expect: kind = COMMIT
-- expect: one_phase = true

-- title: XA ROLLBACK
XA ROLLBACK 'xid1';
-- expect: kind = ROLLBACK

-- title: XA RECOVER
XA RECOVER;
-- expect: class = Xa
-- expect: kind = RECOVER
-- expect: this = none

-- title: LOCK TABLES
LOCK TABLES t READ, u AS x WRITE, v READ LOCAL, w LOW_PRIORITY WRITE;
-- expect: class = LockTables
-- expect: expressions.len = 4
-- expect: expressions.0.this.name = t
-- expect: expressions.0.kind = READ
-- expect: expressions.1.kind = WRITE
-- expect: expressions.1.this.alias = x
-- expect: expressions.2.kind = READ LOCAL
-- expect: expressions.3.kind = LOW_PRIORITY WRITE

-- title: UNLOCK TABLES
UNLOCK TABLES;
-- expect: class = UnlockTables

-- title: SET SESSION variable
SET SESSION binlog_format = 'ROW';
-- expect: class = Set
-- expect: expressions.0.kind = SESSION
-- expect: expressions.0.this.this.name = binlog_format

-- title: SET GLOBAL variable
SET GLOBAL max_connections = 10;
-- expect: expressions.0.kind = GLOBAL

-- title: SET @@session. variable
SET @@session.binlog_format = 'STATEMENT';
-- expect: class = Set
-- expect: expressions.0.this.class = EQ

-- title: SET several user variables, the first from a parenthesised subquery
SET @a = (SELECT id FROM routes WHERE code = 'A'),
    @b = (SELECT id FROM routes WHERE code = 'B');
-- expect: class = Set
-- expect: expressions.0.this.expression.class = Subquery
-- expect: expressions.1.this.this.class = Parameter
-- expect: expressions.1.this.expression.class = Subquery

-- title: SET TRANSACTION ISOLATION LEVEL
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
-- expect: class = Set
-- expect: expressions.0.kind = TRANSACTION
-- expect: expressions.0.expressions.0.name = ISOLATION LEVEL READ COMMITTED
-- expect: expressions.0.session = none

-- title: SET SESSION TRANSACTION ISOLATION LEVEL
SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;
-- expect: expressions.0.kind = TRANSACTION
-- expect: expressions.0.session = true
-- expect: expressions.0.global_ = false

-- title: BINLOG row injection
BINLOG '
lwgBaw8BAAAA/AAAAAABAAABAAQAMTAuMTEuMTktTWFyaWFEQi0=
';
-- expect: class = BinlogEvent
-- expect: this.class = Literal

-- title: PREPARE FROM a string
PREPARE s FROM 'UPDATE t SET v = v + 1 WHERE id = ?';
-- expect: class = Prepare
-- expect: this.name = s
-- expect: expression.class = Literal

-- title: PREPARE FROM a user variable
PREPARE s FROM @q;
-- expect: class = Prepare
-- expect: expression.class = Parameter
-- expect: expression.this.name = q

-- title: EXECUTE ... USING
EXECUTE s USING @a, @b;
-- expect: class = ExecutePrepared
-- expect: this.name = s
-- expect: expressions.1.this.name = b

-- title: DEALLOCATE PREPARE
DEALLOCATE PREPARE s;
-- expect: class = Deallocate
-- expect: this.name = s

-- title: XA PREPARE is still XA
XA PREPARE 'x';
-- expect: class = Xa
-- expect: kind = PREPARE
