/** esbuild's text loader: a stylesheet imported as its text (scripts/bundle.mjs). */
declare module "*.css" {
  const text: string;
  export default text;
}
