export interface Link {
  href: string;
}
export type Links = Record<string, Link>;
