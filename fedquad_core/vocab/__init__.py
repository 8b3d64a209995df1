"""The engine's vocabulary, defined once and torch-free: the measures (``metrics``: name, words,
unit, format, δ, where each is computed), the methods' names and citations (``methods``: read from
each method's own file without importing it) and the one way each number is written in words
(``words``: p values, δ, α). Every table, figure, command and page reads its words here."""
