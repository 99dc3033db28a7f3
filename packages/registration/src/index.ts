// Decision S21: the registration rules a browser and the bridge both apply, in one package both import.
export { passwordProblem, PASSWORD_MAX, PASSWORD_MIN } from './password-policy.ts';
export {
  encryptRegistration,
  REGISTRATION_HPKE_INFO,
  type EncryptedRegistration,
  type RegistrationPlaintext,
} from './seal.ts';
