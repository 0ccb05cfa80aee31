/** Largest JSON request body the API reads (Express body parser and direct routes alike). */
export const JSON_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
