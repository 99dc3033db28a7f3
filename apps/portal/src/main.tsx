// The bundle's one entry (decision F1): esbuild bundles it, and the stylesheet it imports, into
// content-hashed files that build.ts names in index.html, whose #app element the app renders into.
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
