/**
 * Expression-engine calls counted by n8n itself: with the `vm` engine (the default) n8n 2.40.7
 * observes every evaluation in the Prometheus histogram `expression.evaluation.duration_seconds`
 * (`@n8n/expression-runtime`, registered by n8n's ExpressionObservabilityProvider), served on
 * `/metrics` when `N8N_METRICS=true`. Its `_count` summed over labels is the number of engine calls.
 * The `legacy` engine records nothing: then the count is unknown (undefined).
 */
const METRIC = 'n8n_expression_evaluation_duration_seconds';

/** The running total of engine calls, or undefined when n8n does not count them. */
export async function expressionEvaluations(baseUrl: string): Promise<number | undefined> {
	const response = await fetch(`${baseUrl}/metrics`);
	if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status} (is N8N_METRICS=true set?)`);
	return countIn(await response.text());
}

/** Sum of `<METRIC>_count` samples; 0 when the histogram is registered without samples yet. */
export function countIn(text: string): number | undefined {
	let registered = false;
	let total = 0;
	for (const line of text.split('\n')) {
		if (line.startsWith(`# HELP ${METRIC} `) || line.startsWith(`# TYPE ${METRIC} `)) registered = true;
		else if (line.startsWith(`${METRIC}_count`)) {
			registered = true;
			total += Number(line.slice(line.lastIndexOf(' ') + 1));
		}
	}
	return registered ? total : undefined;
}
