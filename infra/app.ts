import { App } from 'aws-cdk-lib';
import { createServiceApp } from './service-app.js';

/** `cdk synth` / `cdk deploy` entry (see cdk.json); the context it reads is listed in ./service-app.ts. */
createServiceApp(new App());
