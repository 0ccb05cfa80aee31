import { RESULT_CHUNK_CHARS } from '../journal/journal.types';
import { wholeCharChunks } from '@app/common/text/whole-characters';

/**
 * Splits text into chunks of at most `size` UTF-16 units for storage (journal results, stored resume
 * responses), never between the two halves of a surrogate pair: a lone half is stored as U+FFFD on both
 * databases, so an emoji on a chunk boundary would come back broken. Joining the chunks gives `text` back.
 */
export function textChunks(text: string, size = RESULT_CHUNK_CHARS): string[] {
  return wholeCharChunks(text, size);
}
