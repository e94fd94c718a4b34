// Runs both legs of n8n's verification scanner locally: on the source tree (the scanner's own
// source patterns) and on the unpacked tarball of `npm pack` (every .js plus package.json).
// Exits non-zero and prints every violation if either leg fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = resolve(import.meta.dirname, '..');
let failed = false;

async function leg(name, dir, patterns) {
	const result = await analyzePackage(dir, patterns);
	if (result.passed) {
		console.log(`verify: ${name}: passed`);
	} else {
		failed = true;
		console.log(`verify: ${name}: FAILED: ${result.message}`);
		if (result.details) console.log(result.details);
	}
}

await leg('source tree', root, SOURCE_FILE_PATTERNS);

const work = mkdtempSync(join(tmpdir(), 'clearinghouse-verify-'));
try {
	const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
	const tarball = join(work, out.trim().split('\n').pop());
	execFileSync('tar', ['-xzf', tarball, '-C', work]);
	const packed = join(work, 'package');
	const files = execFileSync('find', ['.', '-type', 'f'], { cwd: packed, encoding: 'utf8' }).trim().split('\n').sort();
	console.log(`verify: tarball has ${files.length} files: ${files.join(' ')}`);
	const stray = files.filter(
		(f) => !/^\.\/(package\.json|README\.md|LICENSE(\.md)?|dist\/(index\.js|nodes\/.*\.(js|svg|json)|credentials\/.*\.(js|svg)))$/.test(f),
	);
	if (stray.length) {
		failed = true;
		console.log(`verify: tarball: FAILED: files that should not ship: ${stray.join(' ')}`);
	}
	await leg('packed tarball', packed, ['**/*.js', 'package.json']);
} finally {
	rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
