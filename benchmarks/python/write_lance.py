"""Writes the rows of a Quiver table (read with quiver-py) as a Lance dataset, for bench.py."""
import sys

import lance

import quiver

t = quiver.open(sys.argv[1])
reader = t.to_batches()
lance.write_dataset(reader, sys.argv[2], mode="overwrite", max_rows_per_file=1 << 20)
print("lance dataset:", lance.dataset(sys.argv[2]).count_rows(), "rows")
