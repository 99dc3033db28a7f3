// Brand colours, name and logo from the same configuration as the emails (BRAND_DAO_*), published by
// the bridge at /portal/brand.json and applied as CSS custom properties (no inline style: strict CSP).
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';

export interface Brand {
  name: string;
  primary_color: string;
  background_color: string;
  logo_url: string | null;
}

const DEFAULT: Brand = { name: 'DOM DAO', primary_color: '#4338CA', background_color: '#F4F4F7', logo_url: null };

/**
 * Read once for the page's life and shared by every caller (the header and each page's title ask for
 * it; decision F53): one request, the colours applied once. A failed read leaves the defaults.
 */
let loaded: Promise<Brand | undefined> | undefined;
function loadBrand(): Promise<Brand | undefined> {
  loaded ??= api<Brand>('/portal/brand.json').then(
    (b) => {
      document.documentElement.style.setProperty('--brand', b.primary_color);
      document.documentElement.style.setProperty('--page', b.background_color);
      return b;
    },
    () => undefined,
  );
  return loaded;
}

export function useBrand(): Brand {
  const [brand, setBrand] = useState<Brand>(DEFAULT);
  useEffect(() => {
    let live = true;
    void loadBrand().then((b) => live && b && setBrand(b));
    return () => {
      live = false;
    };
  }, []);
  return brand;
}
