/**
 * Half of a UTF-16 surrogate pair with no other half: no character at all. JSON parsers of the model providers refuse
 * it ("no low surrogate in string") with the whole request, and encoded as UTF-8 it becomes U+FFFD (EF BF BD).
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
