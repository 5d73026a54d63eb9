import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function ReplayNotFound() {
  return <RecordNotFound kind="replay" />;
}
