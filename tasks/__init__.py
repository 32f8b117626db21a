"""The pipeline steps as plain typed functions, one package per stage.

catalog/ (files in, index versions out) -> understanding/ (a brief in, a ThemeQuery out) ->
recall/ (a query in, hits per path out) -> ranking/ (hits in, a gated shelf out) -> export/
(shelves in, a workbook out); evaluation/ scores the same path on labelled sets.
"""
