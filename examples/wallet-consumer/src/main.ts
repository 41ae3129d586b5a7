/** Runs the consumer: REDIS_URL, REDIS_PREFIX, DATABASE_URL, CONCURRENCY, SETTLEMENT_SCHEMA_FILE. */
import { Books } from './books.js';
import { startConsumer } from './consumer.js';
import { loadValidator } from './message.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};

const books = new Books({ connectionString: env('DATABASE_URL') });
await books.migrate();
const consumer = startConsumer({
  redisUrl: env('REDIS_URL', 'redis://127.0.0.1:6379'),
  prefix: env('REDIS_PREFIX', 'croupier'),
  books,
  validate: loadValidator(),
  concurrency: Number(env('CONCURRENCY', '4')),
  onApplied: (messageId, applied) => {
    console.log(`${applied ? 'applied' : 'already applied'} ${messageId}`);
  },
  onError: (error) => {
    console.error('redis:', error instanceof Error ? error.message : error);
  },
});
console.log('consuming settlement-events; Ctrl-C to stop');
const stop = async () => {
  await consumer.close();
  await books.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
