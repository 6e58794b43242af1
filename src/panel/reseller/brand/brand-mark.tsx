/**
 * What the layout shows of a brand on its host: its logo and name where the panel's name
 * is elsewhere, and its support contact at the foot of every page. On the provider's own
 * host, the panel's name (`fallback`) and no foot.
 */
import type { PanelState } from '../../context.js';
import { brandMessages } from './catalogue.js';

export function BrandMark(props: { state: PanelState; fallback: string }) {
  const brand = props.state.brand;
  if (!brand)
    return (
      <a class="brand" href="/panel/">
        {props.fallback}
      </a>
    );
  return (
    <a class="brand" href="/panel/">
      {brand.logoType && (
        // The name follows: the image adds nothing to the link's name.
        <img src={`/panel/brand/logo?v=${brand.updatedAt}`} alt="" height={32} />
      )}{' '}
      {brand.name}
    </a>
  );
}

export function BrandFooter(props: { state: PanelState }) {
  const support = props.state.brand?.support;
  if (!support) return null;
  return (
    <footer class="support">
      <p>{brandMessages[props.state.lang].supportLine(support)}</p>
    </footer>
  );
}
