export interface Page {
  name: string;
  load: () => Promise<{ render(total: number, avg: number): string }>;
}
