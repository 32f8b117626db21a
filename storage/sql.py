"""SQL literals for values that come from data."""


def sql_string(value: object) -> str:
    """A SQL string literal; quotes are doubled so a value can never end the literal."""
    return "'" + str(value).replace("'", "''") + "'"
