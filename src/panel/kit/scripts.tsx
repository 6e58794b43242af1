/** Scripts and styles beyond the layout's, loaded by the pages that need them: external files (no inline script). */
export function PageScripts(props: { chart?: boolean }) {
  return (
    <>
      <link rel="stylesheet" href="/panel/assets/data/data-pages.css" />
      {props.chart && <link rel="stylesheet" href="/panel/assets/uPlot.min.css" />}
      {props.chart && <script src="/panel/assets/uPlot.iife.min.js" defer></script>}
      <script type="module" src="/panel/assets/data/data-pages.js"></script>
    </>
  );
}
