/**
 * What an error's description repeats of its message: n8n 2.40.7's error view shows the message and,
 * under it, the description (the toast shows the message alone), so a clause of the message (split at
 * sentence and clause marks, two words or more, 12 characters or more) found again in the description is said twice.
 */
export function repeatedInDescription(message: string, description: string | null | undefined): string[] {
	const details = (description ?? '').toLowerCase();
	return message
		.split(/[.:;()]\s*|,\s+/)
		.map((clause) => clause.trim())
		.filter((clause) => clause.length >= 12 && clause.includes(' ') && details.includes(clause.toLowerCase()));
}
