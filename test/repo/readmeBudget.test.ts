/**
 * The README stays within 16 KiB: it is the package's page on npm and in n8n's community-node listing,
 * read from the top by someone deciding whether to install. What does not fit goes to docs/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

test('README.md is at most 16,384 bytes', () => {
	expect(readFileSync(join(__dirname, '..', '..', 'README.md')).length).toBeLessThanOrEqual(16_384);
});
