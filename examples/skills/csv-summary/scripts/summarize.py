#!/usr/bin/env python3
"""Summarise a CSV file as Markdown: rows, and per column the empty cells and numeric range."""
import csv
import sys


def summarize(path: str) -> str:
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        empty = {c: 0 for c in columns}
        numbers = {c: [] for c in columns}
        rows = 0
        for row in reader:
            rows += 1
            for c in columns:
                value = (row.get(c) or "").strip()
                if not value:
                    empty[c] += 1
                    continue
                if numbers[c] is None:
                    continue  # a text column already
                try:
                    numbers[c].append(float(value))
                except ValueError:
                    numbers[c] = None
    lines = [f"# Summary of {path}", "", f"{rows} rows, {len(columns)} columns.", ""]
    for c in columns:
        line = f"- **{c}**: {empty[c]} empty"
        values = numbers[c]
        if values:
            line += f"; min {min(values):g}, max {max(values):g}, mean {sum(values) / len(values):.2f}"
        lines.append(line)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summarize.py <file.csv>")
    sys.stdout.write(summarize(sys.argv[1]))
