/**
 * Process memory that must stay bounded (secrets opened, events seen, runs in flight): a Map keeps
 * insertion order, so the first key is the one used least recently.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
	// Deleted first, so that a key set again becomes the newest and is forgotten last.
	map.delete(key);
	map.set(key, value);
	while (map.size > max) map.delete(map.keys().next().value as K);
}
