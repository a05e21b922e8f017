/** A CSV that cannot be read (bytes that are not the encoding, a quote never closed): the run stops. */
export class CsvError extends Error {
  override name = "CsvError";
}
