import { render } from 'preact';
import { App } from './app';
import { resume } from './session';
import './styles.css';

const root = document.getElementById('app');
if (root) {
  render(<App />, root);
  void resume();
}
