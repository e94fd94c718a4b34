/** A figure measured over repeated runs: every run kept, the median reported. */
export interface Figure {
	median: number;
	runs: number[];
	unit: string;
}

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function figure(runs: number[], unit: string, digits = 1): Figure {
	const round = (v: number) => Number(v.toFixed(digits));
	return { median: round(median(runs)), runs: runs.map(round), unit };
}

/** `median unit (runs: a, b, c)`, the form every figure is printed in. */
export function show(f: Figure): string {
	return `${f.median} ${f.unit} (runs: ${f.runs.join(', ')})`;
}

/** Ratio of medians, rounded. */
export function ratio(a: Figure, b: Figure, digits = 2): number {
	return Number((a.median / b.median).toFixed(digits));
}

/** Ratios run by run too (each pair measured back-to-back), reported with their median. */
export function pairedRatio(a: number[], b: number[], digits = 2): Figure {
	const runs = a.map((value, i) => value / b[i]);
	return figure(runs, '×', digits);
}
