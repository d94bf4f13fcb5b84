"""Click models (Chuklin, Markov & de Rijke 2015) fitted on a click log as Polars plans."""
