"""RplayMySQL: sqlglot's MySQL dialect extended to the statements a replication workload uses.

sqlglot's MySQL dialect falls back to opaque `exp.Command` for REPLACE, CALL, LOCK TABLES, triggers,
routines and more, and splits every input on `;` (which breaks compound routine bodies). This dialect
parses them into trees the predictor can walk. Statements are bounded at their own `;` while parsing, so
a routine body is one statement whose parts are real nodes.

AST shape per statement kind: statement -> node class: the args the predictor reads.
(exp = sqlglot.expressions, nodes = predictor.nodes; unlisted args are sqlglot's own.)

INSERT / REPLACE            -> exp.Insert: this (exp.Table, or exp.Schema(this=Table, expressions=cols)),
                               expression (exp.Values or a query), ignore, replace, priority
                               ("LOW_PRIORITY" | "DELAYED" | "HIGH_PRIORITY"), conflict (exp.OnConflict for
                               ON DUPLICATE KEY UPDATE). `... SET a=1` is rewritten by sqlglot to cols +
                               one-row Values; set_form=True records that.
UPDATE                      -> exp.Update: this (table, with joins for multi-table), expressions (exp.EQ),
                               where, order, limit (exp.Limit), ignore, priority
DELETE                      -> exp.Delete: this (FROM table), tables (multi-table targets), using, where,
                               order, limit, ignore, quick, priority
LOAD DATA                   -> exp.LoadData: this (exp.Table), inpath (exp.Literal), local, duplicates
                               ("REPLACE" | "IGNORE" | None), priority, columns, set (exp.EQ list),
                               options (exp.Property list), ignore_lines
XA ...                      -> nodes.Xa: kind (BEGIN is stored as START), this (xid), one_phase, modifier
CALL p(args)                -> nodes.Call: this (exp.Table), expressions
DO expr, ...                -> nodes.Do: expressions
SAVEPOINT s                 -> nodes.Savepoint: this (exp.Identifier)
RELEASE SAVEPOINT s         -> nodes.ReleaseSavepoint: this
ROLLBACK [WORK] [TO s]      -> exp.Rollback: savepoint (exp.Identifier), chain (bool), release (bool)
COMMIT [WORK] ...           -> exp.Commit: chain, release
START TRANSACTION / BEGIN   -> exp.Transaction: modes (str list: "READ ONLY", "READ WRITE",
                               "WITH CONSISTENT SNAPSHOT")
LOCK TABLES / UNLOCK TABLES -> nodes.LockTables (expressions: nodes.TableLock(this, kind)) /
                               nodes.UnlockTables
CREATE TRIGGER              -> nodes.CreateTrigger: this, timing, event, table, body, definer, order
CREATE FUNCTION / PROCEDURE -> nodes.CreateRoutine: kind, this, params (nodes.RoutineParam), returns,
                               characteristics, deterministic, body
routine / trigger bodies    -> exp.Block (expressions, label), exp.IfBlock (this, true, false; ELSEIF nests
                               an IfBlock in false), exp.CaseStatement (this, ifs: exp.If(this, true),
                               default), exp.WhileBlock (this, body, label), exp.RepeatBlock (body, until,
                               label), exp.LoopBlock (body, label), exp.Leave / exp.Iterate (this: label
                               str), exp.Return (this), exp.Declare (expressions: exp.DeclareItem(this, kind,
                               default)), nodes.DeclareHandler, nodes.DeclareCursor, nodes.DeclareCondition,
                               nodes.CursorOp, nodes.Signal, nodes.GetDiagnostics; any other statement
                               is its usual node.
                               BEGIN NOT ATOMIC ... END at top level is an exp.Block too.
CREATE VIEW                 -> exp.Create: kind "VIEW", this, expression (query), replace, properties
CREATE TABLE                -> exp.Create: kind "TABLE", this (exp.Schema of exp.ColumnDef and constraints,
                               or exp.Table), expression (the query of CREATE ... SELECT), properties
                               (exp.EngineProperty, exp.TemporaryProperty, exp.LikeProperty, ...),
                               duplicates ("IGNORE" | "REPLACE" written before the SELECT)
CREATE SEQUENCE/INDEX/DB    -> exp.Create: kind, this
DROP ...                    -> exp.Drop: kind, tables, exists, temporary
TRUNCATE [TABLE] t          -> exp.TruncateTable: expressions (tables)
ALTER TABLE                 -> exp.Alter: this, actions, options (exp.EngineProperty for ENGINE=...)
RENAME TABLE a TO b, ...    -> nodes.RenameTables: expressions (exp.Tuple(from, to))
ANALYZE / OPTIMIZE / REPAIR / CHECK / CHECKSUM TABLE
                            -> nodes.TableMaintenance: kind, expressions (tables), local
BINLOG '...'                -> nodes.BinlogEvent: this (exp.Literal, the base64 events): a row injection
FLUSH                       -> nodes.Flush: expressions (exp.Var option words), tables, local
SET ...                     -> exp.Set: expressions of exp.SetItem(this=exp.EQ(target, value), kind
                               "GLOBAL" | "SESSION" | None), or SetItem(kind "TRANSACTION",
                               expressions, global_)
USE db                      -> exp.Use: this
SELECT ... FOR UPDATE       -> exp.Select: locks (exp.Lock: update; wait=True for NOWAIT, wait=False for
                               SKIP LOCKED)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from sqlglot import exp
from sqlglot.dialects.mysql import MySQL
from sqlglot.parsers.mysql import MySQLParser
from sqlglot.tokenizer_core import Token, TokenType

from predictor import nodes
from predictor.generator import RplayGenerator

_STOP_WORDS = frozenset({"END", "ELSE", "ELSEIF", "UNTIL", "WHEN"})
_COMPOUND_CREATABLES = frozenset({"TRIGGER", "FUNCTION", "PROCEDURE", "EVENT"})
_ROUTINE_CHARACTERISTICS: dict[str, Sequence[Sequence[str] | str]] = {
    "DETERMINISTIC": (),
    "NOT": (("DETERMINISTIC",),),
    "CONTAINS": (("SQL",),),
    "NO": (("SQL",),),
    "READS": (("SQL", "DATA"),),
    "MODIFIES": (("SQL", "DATA"),),
    "SQL SECURITY": ("DEFINER", "INVOKER"),  # one SQL_SECURITY token
    "LANGUAGE": (("SQL",),),
}
_LOAD_OPTION_HEADS = frozenset({"FIELDS", "COLUMNS", "LINES"})
_LOAD_OPTION_WORDS: tuple[tuple[str, ...], ...] = (
    ("TERMINATED", "BY"),
    ("OPTIONALLY", "ENCLOSED", "BY"),
    ("ENCLOSED", "BY"),
    ("ESCAPED", "BY"),
    ("STARTING", "BY"),
)

E = TypeVar("E", bound=exp.Expr)
StatementParser = Callable[["RplayParser"], exp.Expr | None]


def _extend(node: E, **extra: object) -> E:
    """Set args sqlglot's class does not declare (its constructor rejects them under test runners)."""
    for key, value in extra.items():
        node.set(key, value)
    return node


def _block(statements: list[exp.Expr], **extra: object) -> exp.Block:
    """A statement list; built directly because an empty `BEGIN END` fails sqlglot's required-arg check."""
    return _extend(exp.Block(expressions=statements), **extra)


class RplayTokenizer(MySQL.Tokenizer):
    """MySQL tokens, minus the keywords that make sqlglot swallow the rest of a statement as a string."""

    KEYWORDS: ClassVar[dict[str, TokenType]] = {
        **{k: v for k, v in MySQL.Tokenizer.KEYWORDS.items() if k not in ("LOCK TABLES", "UNLOCK TABLES")},
        "CALL": TokenType.VAR,
        "OPTIMIZE": TokenType.VAR,
        "PREPARE": TokenType.VAR,  # (sqlglot: a command swallowing the statement; parsed here)
        "DEALLOCATE": TokenType.VAR,
    }
    COMMANDS: ClassVar[set[TokenType]] = {TokenType.COMMAND}
    COMMAND_PREFIX_TOKENS: ClassVar[set[TokenType]] = {TokenType.SEMICOLON}


class RplayParser(MySQLParser):
    """MySQL parser that bounds each simple statement at its `;` and knows MySQL's compound statements."""

    # FLOAT UNSIGNED (deprecated, still accepted by both servers): sqlglot has no unsigned FLOAT type
    SIGNED_TO_UNSIGNED_TYPE_TOKEN: ClassVar[dict[TokenType, TokenType]] = {
        **MySQLParser.SIGNED_TO_UNSIGNED_TYPE_TOKEN, TokenType.FLOAT: TokenType.UDOUBLE}

    # Statements dispatched on the first word's text (their first token is often a plain VAR).
    RPLAY_STATEMENTS: ClassVar[dict[str, StatementParser]] = {
        "REPLACE": lambda self: self._parse_replace(),
        "XA": lambda self: self._parse_xa(),
        "CALL": lambda self: self._parse_call(),
        "DO": lambda self: self.expression(nodes.Do(expressions=self._parse_csv(self._parse_expression))),
        "SAVEPOINT": lambda self: self.expression(nodes.Savepoint(this=self._parse_id_var(any_token=True))),
        "RELEASE": lambda self: self._parse_release(),
        "LOCK": lambda self: self._parse_lock_tables(),
        "UNLOCK": lambda self: self._parse_unlock_tables(),
        "FLUSH": lambda self: self._parse_flush(),
        "RENAME": lambda self: self._parse_rename_tables(),
        "ANALYZE": lambda self: self._parse_table_maintenance("ANALYZE"),
        "OPTIMIZE": lambda self: self._parse_table_maintenance("OPTIMIZE"),
        "REPAIR": lambda self: self._parse_table_maintenance("REPAIR"),
        "CHECK": lambda self: self._parse_table_maintenance("CHECK"),
        "CHECKSUM": lambda self: self._parse_table_maintenance("CHECKSUM"),
        "BINLOG": lambda self: self.expression(nodes.BinlogEvent(this=self._parse_string())),
        "PREPARE": lambda self: self._parse_prepare(),
        "EXECUTE": lambda self: self._parse_execute(),
        "DEALLOCATE": lambda self: self._parse_deallocate(),
    }
    # sqlglot 30 spells it UNCOMITTED, so SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED fails there.
    TRANSACTION_CHARACTERISTICS: ClassVar[dict[str, Sequence[Sequence[str] | str]]] = {
        "ISOLATION": (
            ("LEVEL", "REPEATABLE", "READ"),
            ("LEVEL", "READ", "COMMITTED"),
            ("LEVEL", "READ", "UNCOMMITTED"),
            ("LEVEL", "SERIALIZABLE"),
        ),
        "READ": ("WRITE", "ONLY"),
    }

    # A dispatch word followed by one of these is an expression, e.g. REPLACE(...) or do = 1.
    _NOT_STATEMENT_NEXT = frozenset({TokenType.L_PAREN, TokenType.DOT, TokenType.EQ, TokenType.COMMA})

    # ---- statement boundaries -------------------------------------------------------------------

    def _parse(
        self,
        parse_method: Callable[[Any], exp.Expr | None],
        raw_tokens: list[Token],
        sql: str | None = None,
    ) -> list[exp.Expr | None]:
        self.reset()
        self.sql = sql or ""
        self._chunks = [raw_tokens]
        self._advance_chunk()
        expressions: list[exp.Expr | None] = []
        while self._curr:
            if self._match(TokenType.SEMICOLON):
                continue
            if self._is_compound_start():
                expressions.append(parse_method(self))
            else:
                expressions.append(self._bounded(lambda: parse_method(self)))
            if self._curr and self._curr.token_type != TokenType.SEMICOLON:
                self.raise_error("Invalid expression / Unexpected token")
            self.check_errors()
        return expressions

    def _bounded(self, parse: Callable[[], exp.Expr | None]) -> exp.Expr | None:
        """Run `parse` with the token list cut at the next `;`: sqlglot treats the end of tokens as the
        end of the statement, and a simple statement never contains a `;`."""
        tokens_, size = self._tokens, self._tokens_size
        end = self._index
        while end < size and tokens_[end].token_type != TokenType.SEMICOLON:
            end += 1
        if end == size:
            return parse()
        self._tokens, self._tokens_size = tokens_[:end], end
        self._advance(0)
        try:
            return parse()
        finally:
            self._tokens, self._tokens_size = tokens_, size
            self._advance(0)

    def _is_compound_start(self) -> bool:
        """True for statements that contain `;` inside: CREATE TRIGGER/FUNCTION/PROCEDURE/EVENT,
        BEGIN NOT ATOMIC, and labelled blocks."""
        first = self._curr
        text = first.text.upper()
        if text == "CREATE" and first.token_type == TokenType.CREATE:
            for i in range(self._index + 1, min(self._index + 14, self._tokens_size)):
                tok = self._tokens[i]
                if tok.token_type == TokenType.SEMICOLON:
                    return False
                if tok.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS:
                    word = tok.text.upper()
                    if word in _COMPOUND_CREATABLES:
                        return True
                    if word in ("TABLE", "VIEW", "INDEX", "DATABASE", "SCHEMA", "SEQUENCE", "USER"):
                        return False
            return False
        if text == "BEGIN":
            return self._next.text.upper() == "NOT"
        return bool(self._next and self._next.token_type == TokenType.COLON)

    def _parse_statement(self) -> exp.Expr | None:
        curr = self._curr
        if not curr:
            return None
        if curr.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS:
            handler = self.RPLAY_STATEMENTS.get(curr.text.upper())
            if handler and self._next.token_type not in self._NOT_STATEMENT_NEXT:
                self._advance()
                comments = self._prev_comments
                stmt = handler(self)
                if stmt is not None:
                    stmt.add_comments(comments, prepend=True)
                return stmt
            if curr.text.upper() == "BEGIN" and self._next.text.upper() == "NOT":
                return self._parse_sp_statement()
            if self._next.token_type == TokenType.COLON:
                return self._parse_sp_statement()
        return super()._parse_statement()

    # ---- DML --------------------------------------------------------------------------------------

    def _match_priority(self, words: tuple[str, ...]) -> str | None:
        return self._prev.text.upper() if self._match_texts(words) else None

    def _parse_insert(self) -> exp.Insert | exp.MultitableInserts:
        priority = self._match_priority(("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY"))
        set_form = self._set_form_ahead()
        insert = super()._parse_insert()
        if isinstance(insert, exp.Insert):
            insert.set("priority", priority)
            insert.set("set_form", set_form or None)
        return insert

    def _set_form_ahead(self) -> bool:
        """INSERT/REPLACE ... SET a=1: sqlglot rewrites it to (cols) VALUES (...); remember the form."""
        depth = 0
        for i in range(self._index, self._tokens_size):
            tok = self._tokens[i]
            if tok.token_type == TokenType.L_PAREN:
                depth += 1
            elif tok.token_type == TokenType.R_PAREN:
                depth -= 1
            elif depth == 0 and tok.token_type in (TokenType.VALUES, TokenType.SELECT, TokenType.WITH):
                return False
            elif depth == 0 and tok.token_type == TokenType.SET:
                return True
        return False

    def _parse_replace(self) -> exp.Expr | None:
        insert = self._parse_insert()
        if isinstance(insert, exp.Insert):
            insert.set("replace", True)
        return insert

    def _parse_update(self) -> exp.Update:
        priority = self._match_priority(("LOW_PRIORITY",))
        ignore = self._match(TokenType.IGNORE)
        update = super()._parse_update()
        update.set("priority", priority)
        update.set("ignore", ignore or None)
        return update

    def _parse_delete(self) -> exp.Delete:
        flags: dict[str, bool] = {}
        while self._match_texts(("LOW_PRIORITY", "QUICK", "IGNORE")):
            flags[self._prev.text.lower()] = True
        delete = super()._parse_delete()
        delete.set("priority", "LOW_PRIORITY" if flags.get("low_priority") else None)
        delete.set("quick", flags.get("quick"))
        delete.set("ignore", flags.get("ignore"))
        return delete

    def _parse_load(self) -> exp.LoadData | exp.Command:
        start = self._prev
        if not self._match_text_seq("DATA"):
            return self._parse_as_command(start)
        priority = self._match_priority(("LOW_PRIORITY", "CONCURRENT"))
        local = self._match_text_seq("LOCAL")
        if not self._match_text_seq("INFILE"):
            self.raise_error("Expected INFILE")
        inpath = self._parse_string()
        duplicates = (
            self._prev.text.upper() if self._match_set((TokenType.REPLACE, TokenType.IGNORE)) else None
        )
        if not self._match_text_seq("INTO", "TABLE"):
            self.raise_error("Expected INTO TABLE")
        table = self._parse_table_parts()
        partition = self._parse_partition()
        options: list[exp.Expr] = []
        if self._match_set((TokenType.CHARACTER_SET,)):
            options.append(exp.Property(this=exp.var("CHARACTER SET"), value=self._parse_var_or_string()))
        while self._curr and self._curr.text.upper() in _LOAD_OPTION_HEADS:
            head = self._curr.text.upper()
            self._advance()
            while True:
                for words in _LOAD_OPTION_WORDS:
                    if self._match_text_seq(*words):
                        options.append(
                            exp.Property(
                                this=exp.var(f"{head} {' '.join(words)}"), value=self._parse_string()
                            )
                        )
                        break
                else:
                    break
        ignore_lines = None
        if self._match(TokenType.IGNORE):
            ignore_lines = self._parse_number()
            self._match_texts(("LINES", "ROWS"))
        columns = (
            self._parse_wrapped_csv(self._parse_primary_or_var_column)
            if self._match(TokenType.L_PAREN, advance=False)
            else None
        )
        set_items = self._parse_csv(self._parse_update_assignment) if self._match(TokenType.SET) else None
        load = self.expression(
            exp.LoadData(this=table, local=local or None, inpath=inpath, partition=partition)
        )
        return _extend(
            load,
            duplicates=duplicates,
            priority=priority,
            options=options or None,
            ignore_lines=ignore_lines,
            columns=columns,
            set=set_items,
        )

    def _parse_primary_or_var_column(self) -> exp.Expr | None:
        return self._parse_primary() or self._parse_column()

    def _parse_json_key_value(self) -> exp.JSONKeyValue | None:
        """JSON_OBJECT's keys and values are any expressions: sqlglot stops a value at a comparison
        (``JSON_OBJECT('lookback', v_status = 'TRANSFUSED')``: blood_bank_app's recall procedure)."""
        key = self._parse_disjunction()
        self._match(TokenType.COMMA)
        value = self._parse_disjunction()
        if not key and not value:
            return None
        return self.expression(exp.JSONKeyValue(this=key, expression=value))

    # ---- SELECT ... INTO ------------------------------------------------------------------------------

    QUERY_MODIFIER_PARSERS: ClassVar[dict[TokenType, Callable[[Any], tuple[str, exp.Expr | None]]]] = {
        **MySQLParser.QUERY_MODIFIER_PARSERS,
        TokenType.INTO: lambda self: ("into", self._parse_into()),
    }  # MySQL 8 also takes INTO after FROM / WHERE / ORDER BY / LIMIT

    def _parse_set_item_assignment(self, kind: str | None = None) -> exp.Expr | None:
        """SET SESSION TRANSACTION ...: sqlglot drops SESSION (the level would then hold for the next
        transaction only); kept as ``session=True``. And a parenthesised value followed by more items."""
        if kind == "SESSION" and self._curr is not None and self._curr.text.upper() == "TRANSACTION":
            return _extend(self._parse_set_transaction(), session=True)
        index = self._index
        left = self._parse_primary() or self._parse_column()
        if left and self._match_texts(self.SET_ASSIGNMENT_DELIMITERS):
            if self._match(TokenType.L_PAREN, advance=False):
                # `@a = (SELECT ...), @b = ...`: sqlglot's statement parser takes the comma for a join
                right = self._parse_expression()
                return self.expression(exp.SetItem(this=exp.EQ(this=left, expression=right), kind=kind))
            right = self._parse_statement() or self._parse_id_var()
            if isinstance(right, exp.Column) and right.table:
                # `SET NEW.a = NEW.b` in a trigger: sqlglot makes a lone column a Var (`SET x = ON`) and
                # drops its qualifier; a qualified one stays a column (trigger_set_new_column.sql)
                return self.expression(exp.SetItem(this=exp.EQ(this=left, expression=right), kind=kind))
        self._retreat(index)
        return super()._parse_set_item_assignment(kind)

    def _parse_into(self) -> exp.Into | None:
        """MySQL's ``INTO var [, var ...]`` (local or @user variables: stored code reads several columns
        into several variables) and ``INTO OUTFILE / DUMPFILE 'file'``; sqlglot takes one table name."""
        if not self._match(TokenType.INTO):
            return None
        if self._match_texts(("OUTFILE", "DUMPFILE")):
            into = self.expression(exp.Into(this=self._parse_string()))
            while self._curr and self._curr.token_type not in (TokenType.SEMICOLON, TokenType.FOR,
                                                               TokenType.LOCK):
                self._advance()  # CHARACTER SET / FIELDS / LINES options: nothing the predictor reads
            return into
        targets = self._parse_csv(self._parse_primary_or_var_column)
        return self.expression(exp.Into(this=targets[0] if targets else None, expressions=targets[1:] or None))

    # ---- transactions -----------------------------------------------------------------------------

    def _parse_transaction(self) -> exp.Transaction | exp.Command:
        start = self._prev
        is_start = start.text.upper() == "START"
        if is_start and not self._match_text_seq("TRANSACTION"):
            return self._parse_as_command(start)
        if not is_start:
            self._match_text_seq("WORK")
        modes: list[str] = []
        while is_start:
            if self._match_text_seq("WITH", "CONSISTENT", "SNAPSHOT"):
                modes.append("WITH CONSISTENT SNAPSHOT")
            elif self._match_text_seq("READ", "ONLY"):
                modes.append("READ ONLY")
            elif self._match_text_seq("READ", "WRITE"):
                modes.append("READ WRITE")
            else:
                break
            if not self._match(TokenType.COMMA):
                break
        return self.expression(exp.Transaction(modes=modes or None))

    def _parse_commit_or_rollback(self) -> exp.Commit | exp.Rollback:
        is_rollback = self._prev.token_type == TokenType.ROLLBACK
        self._match_text_seq("WORK")
        savepoint = None
        if is_rollback and self._match_text_seq("TO"):
            self._match_text_seq("SAVEPOINT")
            savepoint = self._parse_id_var(any_token=True)
        chain = None
        if self._match(TokenType.AND):
            chain = not self._match_text_seq("NO")
            if not self._match_text_seq("CHAIN"):
                self.raise_error("Expected CHAIN")
        release = None
        if self._match_text_seq("NO", "RELEASE"):
            release = False
        elif self._match_text_seq("RELEASE"):
            release = True
        if is_rollback:
            return _extend(self.expression(exp.Rollback(savepoint=savepoint)), chain=chain, release=release)
        return _extend(self.expression(exp.Commit(chain=chain)), release=release)

    def _parse_release(self) -> exp.Expr | None:
        if not self._match_text_seq("SAVEPOINT"):
            self.raise_error("Expected SAVEPOINT")
        return self.expression(nodes.ReleaseSavepoint(this=self._parse_id_var(any_token=True)))

    def _parse_xa(self) -> exp.Expr | None:
        kind = self._curr.text.upper()
        if kind not in ("START", "BEGIN", "END", "PREPARE", "COMMIT", "ROLLBACK", "RECOVER"):
            self.raise_error(f"Unknown XA statement {kind}")
        self._advance()
        if kind == "RECOVER":
            convert = self._match_text_seq("CONVERT", "XID")
            return self.expression(nodes.Xa(kind=kind, modifier="CONVERT XID" if convert else None))
        parts = self._parse_csv(self._parse_primary)
        xid: exp.Expr | None = parts[0] if len(parts) == 1 else exp.Tuple(expressions=parts)
        modifier = None
        one_phase = None
        if kind in ("START", "BEGIN") and self._match_texts(("JOIN", "RESUME")):
            modifier = self._prev.text.upper()
        elif kind == "END" and self._match_text_seq("SUSPEND"):
            modifier = "SUSPEND FOR MIGRATE" if self._match_text_seq("FOR", "MIGRATE") else "SUSPEND"
        elif kind == "COMMIT" and self._match_text_seq("ONE", "PHASE"):
            one_phase = True
        return self.expression(
            nodes.Xa(
                kind="START" if kind == "BEGIN" else kind, this=xid, one_phase=one_phase, modifier=modifier
            )
        )

    # ---- small statements -------------------------------------------------------------------------

    def _parse_prepare(self) -> exp.Expr | None:
        name = self._parse_id_var(any_token=True)
        if not self._match(TokenType.FROM):
            self.raise_error("Expected FROM")
        text = self._parse_bitwise()  # a string, or @var
        return self.expression(nodes.Prepare(this=name, expression=text))

    def _parse_execute(self) -> exp.Expr | None:
        name = self._parse_id_var(any_token=True)
        args = self._parse_csv(self._parse_bitwise) if self._match(TokenType.USING) else []
        return self.expression(nodes.ExecutePrepared(this=name, expressions=args))

    def _parse_deallocate(self) -> exp.Expr | None:
        if not self._match_text_seq("PREPARE"):
            self.raise_error("Expected PREPARE")
        return self.expression(nodes.Deallocate(this=self._parse_id_var(any_token=True)))

    def _parse_call(self) -> exp.Expr | None:
        name = self._parse_object_name()
        args: list[exp.Expr] = []
        if self._match(TokenType.L_PAREN):
            if not self._match(TokenType.R_PAREN):
                args = self._parse_csv(self._parse_expression)
                self._match_r_paren()
        return self.expression(nodes.Call(this=name, expressions=args))

    def _parse_lock_tables(self) -> exp.Expr | None:
        if not self._match_texts(("TABLES", "TABLE")):
            self.raise_error("Expected TABLES")
        return self.expression(nodes.LockTables(expressions=self._parse_csv(self._parse_table_lock)))

    def _parse_table_lock(self) -> exp.Expr | None:
        table = self._parse_object_name()
        if self._match(TokenType.ALIAS) or self._curr.text.upper() not in ("READ", "WRITE", "LOW_PRIORITY"):
            table.set("alias", exp.TableAlias(this=self._parse_id_var()))
        if self._match_text_seq("READ"):
            kind = "READ LOCAL" if self._match_text_seq("LOCAL") else "READ"
        elif self._match_text_seq("WRITE"):
            kind = "WRITE"
        elif self._match_text_seq("LOW_PRIORITY", "WRITE"):
            kind = "LOW_PRIORITY WRITE"
        else:
            self.raise_error("Expected READ or WRITE")
            kind = "WRITE"
        return self.expression(nodes.TableLock(this=table, kind=kind))

    def _parse_unlock_tables(self) -> exp.Expr | None:
        if not self._match_texts(("TABLES", "TABLE")):
            self.raise_error("Expected TABLES")
        return self.expression(nodes.UnlockTables())

    def _match_local(self) -> bool:
        return self._match_texts(("NO_WRITE_TO_BINLOG", "LOCAL"))

    def _parse_flush(self) -> exp.Expr | None:
        local = self._match_local()
        if self._match_texts(("TABLES", "TABLE")):
            words = ["TABLES"]
            tables: list[exp.Expr] = []
            if self._curr and self._curr.text.upper() not in ("WITH", "FOR"):
                tables = self._parse_csv(self._parse_table_parts)
            while self._curr:
                words.append(self._curr.text.upper())
                self._advance()
            return self.expression(
                nodes.Flush(
                    expressions=[exp.var(" ".join(words))], tables=tables or None, local=local or None
                )
            )
        options: list[exp.Expr] = []
        while self._curr:
            words = []
            while self._curr and self._curr.token_type != TokenType.COMMA:
                words.append(self._curr.text.upper())
                self._advance()
            if not words:
                self.raise_error("Expected FLUSH option")
                break
            options.append(exp.var(" ".join(words)))
            self._match(TokenType.COMMA)
        return self.expression(nodes.Flush(expressions=options, local=local or None))

    def _parse_rename_tables(self) -> exp.Expr | None:
        start = self._prev
        if not self._match_texts(("TABLE", "TABLES")):
            return self._parse_as_command(start)

        def pair() -> exp.Expr | None:
            old = self._parse_table_parts()
            if not self._match_text_seq("TO"):
                self.raise_error("Expected TO")
            return exp.Tuple(expressions=[old, self._parse_table_parts()])

        return self.expression(nodes.RenameTables(expressions=self._parse_csv(pair)))

    def _parse_table_maintenance(self, kind: str) -> exp.Expr | None:
        start = self._prev
        local = self._match_local()
        if not self._match_texts(("TABLE", "TABLES")):
            return self._parse_as_command(start)
        tables = self._parse_csv(self._parse_table_parts)
        while self._curr and self._curr.token_type == TokenType.VAR:  # CHECK options: QUICK, EXTENDED...
            self._advance()
        return self.expression(nodes.TableMaintenance(kind=kind, expressions=tables, local=local or None))

    # ---- CREATE -----------------------------------------------------------------------------------

    def _parse_create(self) -> exp.Create | exp.Command:
        index = self._index
        replace = self._match_pair(TokenType.OR, TokenType.REPLACE)
        definer: nodes.Definer | None = None
        if self._match_text_seq("DEFINER"):
            definer = self._parse_rplay_definer()
        aggregate = self._match_text_seq("AGGREGATE")
        word = self._curr.text.upper()
        if word == "TRIGGER":
            self._advance()
            return self._parse_create_trigger(definer, replace)  # type: ignore[return-value]
        if word in ("FUNCTION", "PROCEDURE") and self._routine_ahead():
            self._advance()
            return self._parse_create_routine(word, definer, replace, aggregate)  # type: ignore[return-value]
        self._retreat(index)
        self._create_duplicates: str | None = None
        self._view_check = False
        create = super()._parse_create()
        if isinstance(create, exp.Create) and self._create_duplicates:
            create.set("duplicates", self._create_duplicates)
        if isinstance(create, exp.Create) and self._view_check:
            create.set("check_option", True)  # WITH CHECK OPTION (predictor/views.py)
        return create

    def _routine_ahead(self) -> bool:
        """CREATE FUNCTION f RETURNS type SONAME 'lib' (a loadable UDF) has no parameter list."""
        for i in range(self._index + 1, min(self._index + 10, self._tokens_size)):
            tok = self._tokens[i]
            if tok.token_type == TokenType.L_PAREN:
                return True
            if tok.text.upper() == "RETURNS" and tok.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS:
                return False
        return False

    def _parse_ddl_select(self) -> exp.Expr | None:
        # CREATE TABLE t [IGNORE | REPLACE] SELECT ...
        if self._match_set(
            (TokenType.IGNORE, TokenType.REPLACE), advance=False
        ) and self._next.token_type in (
            TokenType.SELECT,
            TokenType.WITH,
            TokenType.L_PAREN,
        ):
            self._create_duplicates = self._curr.text.upper()
            self._advance()
        select = super()._parse_ddl_select()
        # CREATE VIEW ... AS SELECT ... WITH [CASCADED | LOCAL] CHECK OPTION: a check on writes through the view
        index = self._index
        if self._match(TokenType.WITH):
            self._match_texts(("CASCADED", "LOCAL"))
            if self._match_text_seq("CHECK", "OPTION"):
                self._view_check = True
            else:
                self._retreat(index)
        return select

    def _parse_rplay_definer(self) -> nodes.Definer:
        self._match(TokenType.EQ)
        if self._match(TokenType.CURRENT_USER):
            if self._match(TokenType.L_PAREN):
                self._match_r_paren()
            return self.expression(nodes.Definer(this="CURRENT_USER"))
        user = self._curr.text
        self._advance()
        if self._match(TokenType.PARAMETER):
            host = self._curr.text
            self._advance()
            return self.expression(nodes.Definer(this=f"{user}@{host}"))
        return self.expression(nodes.Definer(this=user))

    def _parse_create_trigger(self, definer: nodes.Definer | None, replace: bool) -> exp.Expr:
        exists = self._parse_exists(not_=True)
        name = self._parse_object_name()
        if not self._match_texts(("BEFORE", "AFTER")):
            self.raise_error("Expected BEFORE or AFTER")
        timing = self._prev.text.upper()
        if not self._match_texts(("INSERT", "UPDATE", "DELETE")):
            self.raise_error("Expected INSERT, UPDATE or DELETE")
        event = self._prev.text.upper()
        if not self._match(TokenType.ON):
            self.raise_error("Expected ON")
        table = self._parse_table_parts()
        if not self._match_text_seq("FOR", "EACH", "ROW"):
            self.raise_error("Expected FOR EACH ROW")
        order = None
        if self._match_texts(("FOLLOWS", "PRECEDES")):
            order = exp.Tuple(expressions=[exp.var(self._prev.text.upper()), self._parse_table_parts()])
        body = self._parse_sp_statement()
        return self.expression(
            nodes.CreateTrigger(
                this=name,
                timing=timing,
                event=event,
                table=table,
                body=body,
                definer=definer,
                exists=exists or None,
                replace=replace or None,
                order=order,
            )
        )

    def _parse_create_routine(
        self, kind: str, definer: nodes.Definer | None, replace: bool, aggregate: bool
    ) -> exp.Expr:
        exists = self._parse_exists(not_=True)
        name = self._parse_object_name()
        self._match_l_paren()
        params: list[exp.Expr] = []
        if not self._match(TokenType.R_PAREN):
            params = self._parse_csv(lambda: self._parse_routine_param(kind))
            self._match_r_paren()
        returns = None
        if kind == "FUNCTION":
            if not self._match_text_seq("RETURNS"):
                self.raise_error("Expected RETURNS")
            returns = self._parse_sp_type()
            while self._match_set((TokenType.CHARACTER_SET, TokenType.COLLATE)):
                self._parse_var_or_string()
        characteristics: list[exp.Expr] = []
        deterministic = None
        while True:
            if self._match(TokenType.COMMENT):
                characteristics.append(exp.Property(this=exp.var("COMMENT"), value=self._parse_string()))
                continue
            var = self._parse_var_from_options(_ROUTINE_CHARACTERISTICS, raise_unmatched=False)
            if var is None:
                break
            if var.name == "DETERMINISTIC":
                deterministic = True
            elif var.name == "NOT DETERMINISTIC":
                deterministic = False
            characteristics.append(var)
        body = self._parse_sp_statement()
        return self.expression(
            nodes.CreateRoutine(
                kind=kind,
                this=name,
                params=params,
                returns=returns,
                characteristics=characteristics or None,
                deterministic=deterministic,
                body=body,
                definer=definer,
                exists=exists or None,
                replace=replace or None,
                aggregate=aggregate or None,
            )
        )

    def _parse_object_name(self) -> exp.Table:
        """db.name for routines and triggers (sqlglot's table parser would read `f(` as a call)."""
        name = self._parse_id_var(any_token=True)
        if name is None:
            self.raise_error("Expected a name")
        if self._match(TokenType.DOT):
            return exp.Table(this=self._parse_id_var(any_token=True), db=name)
        return exp.Table(this=name)

    def _parse_routine_param(self, kind: str) -> exp.Expr | None:
        mode = None
        if kind == "PROCEDURE" and self._match_texts(("IN", "OUT", "INOUT")):
            mode = self._prev.text.upper()
        name = self._parse_id_var(any_token=True)
        return self.expression(nodes.RoutineParam(this=name, kind=self._parse_sp_type(), mode=mode))

    def _parse_sp_type(self) -> exp.Expr | None:
        """A parameter's, variable's or RETURNS type, with its CHARACTER SET / COLLATE (kept as args)."""
        kind = self._parse_types()
        while kind is not None:
            if self._match_text_seq("CHARACTER", "SET") or self._match_texts(("CHARSET",)):
                kind.set("charset", self._parse_id_var(any_token=True))
            elif self._match_text_seq("COLLATE"):
                kind.set("collate", self._parse_id_var(any_token=True))
            else:
                break
        return kind

    # ---- compound statements (routine and trigger bodies) ------------------------------------------

    def _parse_sp_list(self) -> list[exp.Expr]:
        """Statements each ending with `;`, up to END / ELSE / ELSEIF / UNTIL / WHEN."""
        statements: list[exp.Expr] = []
        while self._curr and not (
            self._curr.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS
            and self._curr.text.upper() in _STOP_WORDS
        ):
            stmt = self._parse_sp_statement()
            if stmt is None:
                self.raise_error("Expected statement")
                break
            statements.append(stmt)
            if not self._match(TokenType.SEMICOLON):
                self.raise_error("Expected ;")
                break
        return statements

    def _expect(self, *words: str) -> None:
        if not self._match_text_seq(*words):
            self.raise_error(f"Expected {' '.join(words)}")

    def _parse_end(self, *words: str, label: str | None = None) -> None:
        self._expect("END", *words)
        if label and self._curr and self._curr.text.lower() == label.lower():
            self._advance()

    def _parse_sp_statement(self) -> exp.Expr | None:
        label = None
        if self._next.token_type == TokenType.COLON and self._curr.token_type in (
            TokenType.VAR,
            TokenType.IDENTIFIER,
        ):
            label = self._curr.text
            self._advance(2)
        word = self._curr.text.upper() if self._curr.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS else ""
        parser = self.SP_PARSERS.get(word)
        if parser:
            self._advance()
            return parser(self, label)
        if label:
            self.raise_error("Expected BEGIN, LOOP, REPEAT or WHILE after a label")
        return self._bounded(self._parse_statement)

    def _parse_sp_block(self, label: str | None) -> exp.Expr:
        self._match_text_seq("NOT", "ATOMIC")
        statements = self._parse_sp_list()
        self._parse_end(label=label)
        return _block(statements, begin=True, label=label)

    def _parse_sp_if(self, label: str | None) -> exp.Expr:
        condition = self._parse_disjunction()
        self._expect("THEN")
        true = _block(self._parse_sp_list())
        false: exp.Expr | None = None
        if self._match_text_seq("ELSEIF"):
            false = self._parse_sp_if(None)
            return self.expression(exp.IfBlock(this=condition, true=true, false=false))
        if self._match(TokenType.ELSE):
            false = _block(self._parse_sp_list())
        self._parse_end("IF")
        return self.expression(exp.IfBlock(this=condition, true=true, false=false))

    def _parse_sp_case(self, label: str | None) -> exp.Expr:
        operand = None if self._match(TokenType.WHEN, advance=False) else self._parse_disjunction()
        ifs: list[exp.Expr] = []
        while self._match(TokenType.WHEN):
            condition = self._parse_disjunction()
            self._expect("THEN")
            ifs.append(exp.If(this=condition, true=_block(self._parse_sp_list())))
        default = _block(self._parse_sp_list()) if self._match(TokenType.ELSE) else None
        self._parse_end("CASE")
        return self.expression(exp.CaseStatement(this=operand, ifs=ifs, default=default))

    def _parse_sp_while(self, label: str | None) -> exp.Expr:
        condition = self._parse_disjunction()
        self._expect("DO")
        body = _block(self._parse_sp_list())
        self._parse_end("WHILE", label=label)
        return self.expression(exp.WhileBlock(this=condition, body=body, label=label))

    def _parse_sp_repeat(self, label: str | None) -> exp.Expr:
        body = _block(self._parse_sp_list())
        self._expect("UNTIL")
        until = self._parse_disjunction()
        self._parse_end("REPEAT", label=label)
        return self.expression(exp.RepeatBlock(body=body, until=until, label=label))

    def _parse_sp_loop(self, label: str | None) -> exp.Expr:
        body = _block(self._parse_sp_list())
        self._parse_end("LOOP", label=label)
        return self.expression(exp.LoopBlock(body=body, label=label))

    def _parse_sp_jump(self, cls: type[exp.Expression]) -> exp.Expr:
        target = self._curr.text
        self._advance()
        return self.expression(cls(this=target))

    def _parse_sp_declare(self, label: str | None) -> exp.Expr:
        if self._match_texts(("CONTINUE", "EXIT", "UNDO")):
            action = self._prev.text.upper()
            self._expect("HANDLER", "FOR")
            conditions = self._parse_csv(self._parse_handler_condition)
            return self.expression(
                nodes.DeclareHandler(action=action, conditions=conditions, body=self._parse_sp_statement())
            )
        if self._next.text.upper() == "CURSOR":
            name = self._parse_id_var(any_token=True)
            self._expect("CURSOR", "FOR")
            return self.expression(
                nodes.DeclareCursor(this=name, expression=self._bounded(self._parse_statement))
            )
        if self._next.text.upper() == "CONDITION":
            name = self._parse_id_var(any_token=True)
            self._expect("CONDITION", "FOR")
            return self.expression(
                nodes.DeclareCondition(this=name, expression=self._parse_handler_condition())
            )
        names = self._parse_csv(lambda: self._parse_id_var(any_token=True))
        kind = self._parse_sp_type()
        default = self._parse_disjunction() if self._match(TokenType.DEFAULT) else None
        items: list[exp.Expr] = [exp.DeclareItem(this=n, kind=kind, default=default) for n in names]
        return self.expression(exp.Declare(expressions=items))

    def _parse_handler_condition(self) -> exp.Expr | None:
        if self._match_text_seq("SQLSTATE"):
            self._match_text_seq("VALUE")
            return exp.Tuple(expressions=[exp.var("SQLSTATE"), self._parse_string()])
        if self._match_text_seq("NOT", "FOUND"):
            return exp.var("NOT FOUND")
        if self._match_texts(("SQLEXCEPTION", "SQLWARNING")):
            return exp.var(self._prev.text.upper())
        return self._parse_number() or self._parse_id_var(any_token=True)

    def _parse_sp_cursor(self, kind: str) -> exp.Expr:
        if kind == "FETCH":
            self._match_text_seq("NEXT")
            self._match(TokenType.FROM)
        name = self._parse_id_var(any_token=True)
        targets = None
        if kind == "FETCH":
            self._expect("INTO")
            targets = self._parse_csv(lambda: self._parse_id_var(any_token=True))
        return self.expression(nodes.CursorOp(kind=kind, this=name, expressions=targets))

    def _parse_sp_signal(self, kind: str) -> exp.Expr:
        condition = None
        if self._match_text_seq("SQLSTATE"):
            self._match_text_seq("VALUE")
            condition = self._parse_string()
        elif self._curr and self._curr.token_type != TokenType.SET:
            condition = self._parse_id_var(any_token=True)
        items = self._parse_csv(self._parse_update_assignment) if self._match(TokenType.SET) else None
        return self.expression(nodes.Signal(kind=kind, this=condition, expressions=items))

    def _parse_sp_diagnostics(self, label: str | None) -> exp.Expr:
        kind = "STACKED" if self._match_text_seq("STACKED") else "CURRENT"
        self._match_text_seq("CURRENT")
        self._expect("DIAGNOSTICS")
        condition = self._parse_bitwise() if self._match_text_seq("CONDITION") else None

        def item() -> exp.Expr:
            target = self._parse_id_var(any_token=True)
            if not self._match(TokenType.EQ):
                self.raise_error("Expected = in GET DIAGNOSTICS")
            name = self._parse_id_var(any_token=True)
            return exp.EQ(this=exp.column(target.name if target else ""), expression=exp.var(name.name if name else ""))

        items = self._parse_csv(item)
        return self.expression(nodes.GetDiagnostics(kind=kind, this=condition, expressions=items))

    def _parse_sp_return(self, label: str | None) -> exp.Expr:
        return self.expression(exp.Return(this=self._bounded(self._parse_expression)))

    SP_PARSERS: ClassVar[dict[str, Callable[[RplayParser, str | None], exp.Expr]]] = {
        "BEGIN": _parse_sp_block,
        "IF": _parse_sp_if,
        "CASE": _parse_sp_case,
        "WHILE": _parse_sp_while,
        "REPEAT": _parse_sp_repeat,
        "LOOP": _parse_sp_loop,
        "LEAVE": lambda self, label: self._parse_sp_jump(exp.Leave),
        "ITERATE": lambda self, label: self._parse_sp_jump(exp.Iterate),
        "RETURN": _parse_sp_return,
        "DECLARE": _parse_sp_declare,
        "OPEN": lambda self, label: self._parse_sp_cursor("OPEN"),
        "CLOSE": lambda self, label: self._parse_sp_cursor("CLOSE"),
        "FETCH": lambda self, label: self._parse_sp_cursor("FETCH"),
        "SIGNAL": lambda self, label: self._parse_sp_signal("SIGNAL"),
        "RESIGNAL": lambda self, label: self._parse_sp_signal("RESIGNAL"),
        "GET": _parse_sp_diagnostics,
    }


class RplayMySQL(MySQL):
    """The dialect the predictor parses with: MySQL plus MariaDB statements (see module docstring)."""

    Tokenizer = RplayTokenizer
    Parser = RplayParser
    Generator = RplayGenerator
