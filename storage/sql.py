"""SQL literals for values that come from data, and the column names the index tables share with filters."""


def sql_string(value: object) -> str:
    """A SQL string literal; quotes are doubled so a value can never end the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def tag_column(dimension: str) -> str:
    """The LanceDB column holding a book's values of one vocabulary dimension."""
    return f"tag_{dimension}"
