// halfred ships no types: the part of its API the HAL client test uses.
declare module 'halfred' {
  interface Link {
    href: string;
  }
  interface Resource {
    link(key: string): Link | null;
    embeddedArray(key: string): Resource[] | null;
    validationIssues(): unknown[];
    original(): Record<string, unknown>;
    [field: string]: unknown;
  }
  const halfred: { parse(object: unknown): Resource; enableValidation(on?: boolean): void };
  export default halfred;
}
