/** Every record carries when it was created and last changed (ISO-8601 UTC text). */
export interface Timestamps {
  created_at: string;
  updated_at: string;
}
