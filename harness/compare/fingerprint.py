"""Statement fingerprints: SQL with literals replaced by ``?``, so one shape of statement aggregates once.

Built on sqlglot's tokenizer (not regexes) so quoting, comments and escapes are handled as the parser does.
The tokenizer is pure Python (~130 us per statement), so callers fingerprint each distinct SQL text once.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from sqlglot.dialects.mysql import MySQL
from sqlglot.tokenizer_core import Token, TokenType

_LITERALS = frozenset({
    TokenType.NUMBER, TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.HEX_STRING,
    TokenType.BIT_STRING, TokenType.BYTE_STRING, TokenType.RAW_STRING, TokenType.HEREDOC_STRING,
    TokenType.UNICODE_STRING,
})
_BEFORE_UNARY = frozenset({"(", ",", "=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "VALUES",
                           "IN", "SET", "WHERE", "AND", "OR", "NOT", "SELECT", "LIMIT", "BY", "THEN", "ELSE"})
_TOKENIZER = MySQL.tokenizer_class()


def _words(tokens: list[Token]) -> list[str]:
    out: list[str] = []
    for tok in tokens:
        tt = tok.token_type
        if tt in _LITERALS:
            # fold a unary minus into the literal: "-1" and "1" share a fingerprint
            if out and out[-1] == "-" and (len(out) == 1 or out[-2] in _BEFORE_UNARY):
                out.pop()
            out.append("?")
        elif tt == TokenType.IDENTIFIER:
            out.append(f"`{tok.text}`")
        elif tt == TokenType.VAR:
            out.append(tok.text)
        else:
            out.append(tok.text.upper())
    return out


def _collapse(words: Iterable[str]) -> list[str]:
    """``?, ?, ?`` and ``(?)`` become ``?+``; repeated ``( ?+ ) , ( ?+ )`` becomes one group."""
    out: list[str] = []
    for w in words:
        if w == "?" and len(out) >= 2 and out[-1] == "," and out[-2] in ("?", "?+"):
            out.pop()
            out[-1] = "?+"
            continue
        out.append(w)
        if w == ")" and out[-3:-1] == ["(", "?"]:
            out[-2] = "?+"  # a one-literal list is the same shape as a longer one
        # ( X ) , ( X ) -> ( X )
        if w == ")" and "(" in out:
            start = len(out) - 1 - out[::-1].index("(")
            group = out[start:]
            n = len(group)
            if len(out) >= 2 * n + 1 and out[start - 1] == "," and out[start - 1 - n:start - 1] == group:
                del out[start - 1:]
    return out


@lru_cache(maxsize=65536)
def fingerprint(sql: str) -> str:
    """The normalised shape of ``sql``; falls back to whitespace-collapsed text if it cannot be tokenized."""
    try:
        tokens = _TOKENIZER.tokenize(sql)
    except Exception:  # sqlglot raises TokenError and, on odd input, plain errors; never fail the report
        return " ".join(sql.split())
    return " ".join(_collapse(_words(tokens)))
