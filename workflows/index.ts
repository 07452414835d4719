// Every workflow the worker runs is exported here (the bundler's entry point).
export { ping } from './ping';
