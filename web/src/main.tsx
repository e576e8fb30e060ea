import { render } from 'preact';
import { App } from './components/app.js';
import './styles.css';

render(<App />, document.getElementById('root')!);
