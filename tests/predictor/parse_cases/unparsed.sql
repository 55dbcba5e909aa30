-- title: misspelt keyword is not a statement
SELEC x FROM t;
-- expect: class = Unparsed
-- expect: reason ~ sqlglot

-- title: unknown statement falls back to Unparsed
START SLAVE;
-- expect: class = Unparsed
-- expect: reason ~ unsupported statement: START SLAVE

-- title: syntax error gives line and column
SELECT * FROM t WHERE (a = 1;
-- expect: class = Unparsed
-- expect: reason ~ at line 1 col

-- title: two statements in one input
INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);
-- expect: class = Unparsed
-- expect: reason ~ expected one statement

-- title: empty input
-- expect: class = Unparsed
-- expect: reason = empty statement

-- title: block with a missing END
CREATE PROCEDURE p() BEGIN SELECT 1;
-- expect: class = Unparsed
-- expect: reason ~ Expected END

-- title: unterminated string
SELECT 'abc;
-- expect: class = Unparsed
-- expect: reason ~ sqlglot
